import type { z } from 'zod';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
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
  | { status?: number; text: string; contentType: string };

export type PublicRouteInput<P, Q, B> = Omit<RouteInput<P, Q, B>, 'principal'>;

interface RouteShape<P, Q, B> {
  /** Names the Lambda function on AWS and the route in logs. */
  name: string;
  method: HttpMethod;
  /** API Gateway's template syntax: `/v2/functions/{owner_name}/{function_name}`. */
  path: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
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
export interface KeyedRoute<P = unknown, Q = unknown, B = unknown> extends RouteShape<P, Q, B> {
  public?: false;
  handle(input: RouteInput<P, Q, B>): Promise<RouteResult>;
}

/**
 * A route that needs no API key (health, the API's own description). It sees no principal,
 * so it can answer nothing that belongs to an organization.
 */
export interface PublicRoute<P = unknown, Q = unknown, B = unknown> extends RouteShape<P, Q, B> {
  public: true;
  handle(input: PublicRouteInput<P, Q, B>): Promise<RouteResult>;
}

export type Route<P = unknown, Q = unknown, B = unknown> = KeyedRoute<P, Q, B> | PublicRoute<P, Q, B>;

/** Keeps each route's schemas and handler typed together while the table holds them as one type. */
export function defineRoute<P, Q, B>(route: KeyedRoute<P, Q, B>): Route;
export function defineRoute<P, Q, B>(route: PublicRoute<P, Q, B>): Route;
export function defineRoute<P, Q, B>(route: Route<P, Q, B>): Route {
  return route as unknown as Route;
}
