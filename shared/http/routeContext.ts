import type { Context } from 'aws-lambda';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';

/** The Lambda context, carrying what the middlewares found out for the route's handler. */
export interface RouteContext extends Context {
  services: Services;
  principal?: Principal;
  input?: { params: unknown; query: unknown; body: unknown; headers: unknown };
}
