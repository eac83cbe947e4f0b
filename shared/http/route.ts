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
  | { redirect: string };

/**
 * One HTTP route: what it accepts (zod schemas for path, query and body) and what it does.
 * Every route needs an API key; the middlewares authenticate and validate before `handle` runs.
 */
export interface Route<P = unknown, Q = unknown, B = unknown> {
  /** Names the Lambda function on AWS and the route in logs. */
  name: string;
  method: HttpMethod;
  /** API Gateway's template syntax: `/v2/functions/{owner_name}/{function_name}`. */
  path: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  handle(input: RouteInput<P, Q, B>): Promise<RouteResult>;
}

/** Keeps each route's schemas and handler typed together while the table holds them as one type. */
export function defineRoute<P, Q, B>(route: Route<P, Q, B>): Route {
  return route as unknown as Route;
}
