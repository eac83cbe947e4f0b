import type { z } from 'zod';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';
import type { EventStream } from '../services/eventStream.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteInput<P, Q, B, H = unknown> {
  params: P;
  query: Q;
  body: B;
  /** The headers the route's `headers` schema reads (names in lower case). */
  headers: H;
  principal: Principal;
  services: Services;
}

export type RouteResult =
  | {
      status?: number;
      /** Serialised as JSON, with bigint values printed as exact integers. */
      body: unknown;
    }
  /** Answered 307: the client fetches the bytes from there (a presigned S3 URL). */
  | { redirect: string }
  /** A body that is not JSON (an HTML page, Prometheus text), sent as is. */
  | { status?: number; text: string; contentType: string }
  /**
   * Server-Sent Events: streamed as they come by the local gateway; on Lambda, whose answer is
   * buffered, collected until the stream has caught up (or a bounded wait) and sent whole.
   */
  | { events: EventStream };

export type PublicRouteInput<P, Q, B, H = unknown> = Omit<RouteInput<P, Q, B, H>, 'principal'>;

/** What a route answers when it succeeds, as the API document (GET /openapi.json) describes it. */
export interface RouteResponse {
  /** 200 unless given. */
  status?: number;
  description?: string;
  /** The JSON body's schema (a wire schema of shared/domain/wire); none for a redirect. */
  schema?: z.ZodType;
  /** A body that is not JSON: its media type (`text/html`, ...). */
  contentType?: string;
}

interface RouteShape<P, Q, B, H> {
  /** Names the Lambda function on AWS and the route in logs; the operation's id in the API document. */
  name: string;
  /** One line for the API reference. */
  summary?: string;
  /** More for the API reference, where the summary does not say enough. */
  description?: string;
  response?: RouteResponse;
  /** A request body to show in the API reference's example. */
  example?: unknown;
  method: HttpMethod;
  /** API Gateway's template syntax: `/v2/functions/{owner_name}/{function_name}`. */
  path: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Request headers the route reads, keyed by lower-case name (`idempotency-key`). */
  headers?: z.ZodType<H>;
  /**
   * Holds the request open while it waits for something (await): a stopping service answers it
   * 503 with Retry-After at once rather than cutting it, so the client asks again.
   */
  waits?: true;
}

/**
 * One HTTP route: what it accepts (zod schemas for path, query and body) and what it does.
 * The middlewares authenticate (API key) and validate before `handle` runs.
 */
export interface KeyedRoute<P = unknown, Q = unknown, B = unknown, H = unknown> extends RouteShape<P, Q, B, H> {
  public?: false;
  handle(input: RouteInput<P, Q, B, H>): Promise<RouteResult>;
}

/**
 * A route that needs no API key (health, the API's own description). It sees no principal,
 * so it can answer nothing that belongs to an organization.
 */
export interface PublicRoute<P = unknown, Q = unknown, B = unknown, H = unknown> extends RouteShape<P, Q, B, H> {
  public: true;
  handle(input: PublicRouteInput<P, Q, B, H>): Promise<RouteResult>;
}

export type Route<P = unknown, Q = unknown, B = unknown, H = unknown> = KeyedRoute<P, Q, B, H> | PublicRoute<P, Q, B, H>;

/** Keeps each route's schemas and handler typed together while the table holds them as one type. */
export function defineRoute<P, Q, B, H>(route: KeyedRoute<P, Q, B, H>): Route;
export function defineRoute<P, Q, B, H>(route: PublicRoute<P, Q, B, H>): Route;
export function defineRoute<P, Q, B, H>(route: Route<P, Q, B, H>): Route {
  return route as unknown as Route;
}
