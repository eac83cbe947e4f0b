import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { classifyAddress } from '../domain/networkAddress.js';
import { PROMETHEUS_CONTENT_TYPE } from '../domain/prometheusText.js';
import type { RawEndpoint } from './nodeGateway.js';

export interface MetricsEndpointOptions {
  /** SLUICE_METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, only this machine may scrape. */
  token: string | undefined;
  /** The exposition text, read at each scrape. */
  render(): Promise<string>;
}

/**
 * GET /metrics, Prometheus text. Its labels name the functions and versions of every
 * organization, so no API key (which speaks for one organization) opens it: a token of its
 * own does, or, without one, a request from this machine (docs/security.md, "Metrics").
 */
export function metricsEndpoint(options: MetricsEndpointOptions): RawEndpoint {
  return {
    pathPrefix: '/metrics',
    async serve(request, url) {
      if (url.pathname !== '/metrics') return { status: 404, body: { detail: 'Not Found' } };
      if (request.method !== 'GET') return { status: 405, body: { detail: 'Method Not Allowed' } };
      const refusal = refuse(request, options.token);
      if (refusal) return refusal;
      return { status: 200, text: await options.render(), contentType: PROMETHEUS_CONTENT_TYPE };
    },
  };
}

function refuse(request: IncomingMessage, token: string | undefined): { status: number; body: { detail: string } } | null {
  if (token === undefined) {
    if (classifyAddress(request.socket.remoteAddress ?? '') === 'loopback') return null;
    return {
      status: 403,
      body: { detail: 'Metrics are served to this machine only; set SLUICE_METRICS_TOKEN to scrape them from elsewhere (with Authorization: Bearer <token>).' },
    };
  }
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (given !== undefined && sameSecret(given, token)) return null;
  return { status: 401, body: { detail: 'Metrics need Authorization: Bearer <SLUICE_METRICS_TOKEN>.' } };
}

/** Compared as digests, in constant time, so neither the token nor its length leaks through timing. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
