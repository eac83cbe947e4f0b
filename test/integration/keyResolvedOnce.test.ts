import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import type { RouteEvent } from '../../shared/http/apiGatewayEvent.js';
import { createNodeGateway, type NodeGateway } from '../../shared/http/nodeGateway.js';
import { createRouteHandler } from '../../shared/http/routeHandler.js';
import { getOrganization } from '../../shared/http/routes/getOrganization.js';
import type { Store } from '../../shared/ports/store.js';
import { AuthService } from '../../shared/services/authService.js';
import { KeyService } from '../../shared/services/keyService.js';
import type { Services } from '../../shared/services/services.js';
import type { Context } from 'aws-lambda';

const UNAUTHORIZED = { detail: 'Unauthorized - valid API Key required.' };

/** What API Gateway hands the route's Lambda for GET /v2/organization: no authorizer is configured. */
function lambdaEvent(apiKey: string | undefined, authorizer?: RouteEvent['requestContext']['authorizer']): RouteEvent {
  return {
    version: '2.0',
    routeKey: 'GET /v2/organization',
    rawPath: '/v2/organization',
    rawQueryString: '',
    headers: apiKey === undefined ? {} : { 'x-api-key': apiKey },
    isBase64Encoded: false,
    requestContext: {
      accountId: '1',
      apiId: 'api',
      authorizer,
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'GET', path: '/v2/organization', protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'test' },
      requestId: 'r1',
      routeKey: 'GET /v2/organization',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
  };
}

describe('an API key is resolved once per request', () => {
  let store: Store;
  let keys: KeyService;
  let services: Services;
  let lookups: number;

  beforeEach(() => {
    store = createSqliteStore(':memory:');
    const auth = new AuthService(store);
    keys = new KeyService(store, createSystemClock(), () => auth.forgetKeys());
    lookups = 0;
    const authenticate = auth.authenticate.bind(auth);
    auth.authenticate = (apiKey) => {
      lookups += 1;
      return authenticate(apiKey);
    };
    // Only what GET /v2/organization and the key check use.
    services = { auth } as unknown as Services;
  });
  afterEach(() => store.close());

  describe('on Lambda, where the route looks the key up itself', () => {
    const call = (event: RouteEvent) => createRouteHandler(getOrganization, async () => services, { error: () => undefined })(event, {} as Context);

    it('answers the organization of a valid key, and 401 for a missing, unknown or revoked one', async () => {
      const { key, secret } = await keys.createKey('acme');
      expect(JSON.parse((await call(lambdaEvent(secret))).body as string)).toMatchObject({ name: 'acme' });
      for (const apiKey of [undefined, '', 'sk_made-up-0123456789']) {
        const answer = await call(lambdaEvent(apiKey));
        expect([answer.statusCode, JSON.parse(answer.body as string)]).toEqual([401, UNAUTHORIZED]);
      }
      await keys.revokeKey(key.id);
      expect((await call(lambdaEvent(secret))).statusCode).toBe(401);
    });

    it('takes the caller an authorizer resolved, without looking the key up again', async () => {
      const { organization } = await keys.createKey('acme');
      const principal = { organizationId: organization.id, organizationName: 'acme' };
      const answer = await call(lambdaEvent(undefined, { lambda: { principal } }));
      expect([answer.statusCode, JSON.parse(answer.body as string)]).toEqual([200, { id: organization.id, name: 'acme' }]);
      expect(lookups).toBe(0);
    });
  });

  describe('in the local gateway, which checks the key before reading a body', () => {
    let gateway: NodeGateway;
    let url = '';

    beforeEach(async () => {
      gateway = createNodeGateway({ routes: [getOrganization], services, logger: { error: () => undefined }, maxBodyBytes: 1024 });
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v2/organization`;
    });
    afterEach(() => new Promise((resolve) => gateway.close(resolve)));

    const get = async (apiKey?: string) => {
      const response = await fetch(url, { headers: apiKey === undefined ? {} : { 'x-api-key': apiKey } });
      return [response.status, await response.json()];
    };

    it('looks a valid key up once, and answers its organization', async () => {
      const { organization, secret } = await keys.createKey('acme');
      expect(await get(secret)).toEqual([200, { id: organization.id, name: 'acme' }]);
      expect(lookups).toBe(1);
    });

    it('answers 401 for a missing, unknown or revoked key', async () => {
      const { key, secret } = await keys.createKey('acme');
      expect(await get()).toEqual([401, UNAUTHORIZED]);
      expect(await get('sk_made-up-0123456789')).toEqual([401, UNAUTHORIZED]);
      await keys.revokeKey(key.id);
      expect(await get(secret)).toEqual([401, UNAUTHORIZED]);
    });
  });
});
