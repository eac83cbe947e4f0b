import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsOf, startHttpFront } from '../../emulator/apiGateway.js';
import { LambdaService } from '../../emulator/lambda/lambdaService.js';
import { resourcesOf, sluiceApp } from '../infra/sluiceTemplates.js';

/** A route function that answers 401 with a CORS header of its own, which API Gateway replaces. */
const HANDLER = `export const handler = async () => ({
  statusCode: 401,
  headers: { 'content-type': 'application/json', 'access-control-allow-origin': 'https://not-this.example' },
  body: JSON.stringify({ detail: 'Unauthorized' }),
});
`;

describe('the emulated API Gateway: CORS as the template configures it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-apigw-'));
  let lambdas: LambdaService;
  let server: Server;
  let url = '';

  beforeAll(async () => {
    writeFileSync(join(dir, 'fn.mjs'), HANDLER);
    lambdas = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(dir, 'fn.log'));
    lambdas.register({
      name: 'fn',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:fn',
      codeDir: dir,
      handler: 'fn.handler',
      environment: {},
      timeoutMs: 5000,
      memoryMb: 128,
      runtime: 'nodejs24.x',
    });
    // The CorsConfiguration of the API the stacks synthesize.
    const [httpApi] = Object.values(resourcesOf(sluiceApp().templates.api, 'AWS::ApiGatewayV2::Api'));
    const cors = corsOf(httpApi?.Properties.CorsConfiguration);
    expect(cors).not.toBeNull();
    ({ server, url } = await startHttpFront(
      lambdas,
      [{ method: 'GET', path: '/v2/jobs', routeKey: 'GET /v2/jobs', functionName: 'fn' }],
      0,
      '127.0.0.1',
      cors,
    ));
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    lambdas.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a preflight itself, on any path, with 204 and the configured methods and headers', async () => {
    for (const path of ['/v2/jobs', '/v2/push', '/no/route']) {
      const answer = await fetch(`${url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-allow-headers')).toContain('X-API-Key');
      expect(answer.headers.get('access-control-max-age')).toBe('86400');
    }
  });

  it('puts the configured headers on the function’s answers, in place of its own, and on its own 404', async () => {
    const answer = await fetch(`${url}/v2/jobs`, { headers: { origin: 'https://app.example.com' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toContain('Retry-After');
    const missing = await fetch(`${url}/nothing`, { headers: { origin: 'https://app.example.com' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
  });
});
