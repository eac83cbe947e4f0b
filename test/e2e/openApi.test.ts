import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../shared/http/openapi/openApiDocument.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { openApi31 } from '../support/openApi31.js';
import { answerChecker } from '../support/sluiceDocument.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Every `$ref` in a JSON value. */
const refsIn = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(refsIn)
    : value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, inner]) => (key === '$ref' ? [String(inner)] : refsIn(inner)))
      : [];

describe('the API document (GET /openapi.json) and its reference page (GET /docs/api)', () => {
  let service: TestService;
  let document: OpenApiDocument;
  let answerProblems: ReturnType<typeof answerChecker>;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);

  beforeAll(async () => {
    service = await startTestService();
    const response = await fetch(`${service.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    document = (await response.json()) as OpenApiDocument;
    answerProblems = answerChecker(document);
  });
  afterAll(() => service?.close());

  it('is an OpenAPI 3.1 document, served without a key', () => {
    const parsed = openApi31.safeParse(document);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every request and answer with valid JSON Schema 2020-12, each reference resolving', () => {
    const ajv = new Ajv2020({ strict: true });
    const schemas = [
      ...Object.values(document.components.schemas),
      ...Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).flatMap((operation) => operation.parameters.map((parameter) => parameter.schema)),
      ),
    ];
    for (const schema of schemas) expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    const names = new Set(Object.keys(document.components.schemas).map((name) => `#/components/schemas/${name}`));
    expect(refsIn(document).filter((ref) => !names.has(ref))).toEqual([]);
  });

  it('has every route of the table as an operation named after it, with each path parameter declared', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.name);
      const declared = operation?.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(declared).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name));
    }
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations).toHaveLength(ROUTES.length);
  });

  it('says which routes need no key, and answers 401 in the Error shape on the others', async () => {
    expect(document.paths['/openapi.json']?.get?.security).toEqual([]);
    expect(document.security).toEqual([{ ApiKey: [] }]);
    const { status, body } = await api(service.url, undefined, 'GET', '/v2/jobs');
    expect(answerProblems('listJobs', status, body)).toEqual([]);
  });

  it('describes the real answers of the job loop: deploy, push, await, read, list, logs, usage', async () => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('shout') }));
    expect(answerProblems('deployVersion', deployed.status, deployed.body)).toEqual([]);
    await waitForBuild(service, 'local/shout', deployed.body.version.id);
    const pushed = await call('POST', '/v2/push', { function: 'local/shout', inputs: { text: 'hey', times: 2 } });
    const answers: [string, { status: number; body: unknown }][] = [
      ['pushJob', pushed],
      ['awaitJob', await call('GET', `/v2/jobs/${pushed.body.id}/await`)],
      ['getJob', await call('GET', `/v2/jobs/${pushed.body.id}`)],
      ['listJobs', await call('GET', '/v2/jobs?limit=1')],
      ['listFunctionJobs', await call('GET', '/v2/functions/local/shout/jobs')],
      ['getFunction', await call('GET', '/v2/functions/local/shout')],
      ['listFunctions', await call('GET', '/v2/functions?truncate=true')],
      ['listVersions', await call('GET', '/v2/functions/local/shout/versions')],
      ['readLogs', await call('GET', `/v2/logs?version_id=${deployed.body.version.id}`)],
      ['getUsage', await call('GET', '/v2/usage')],
      ['getUsagePerFunction', await call('GET', '/v2/usage/function')],
      ['getJobUsage', await call('GET', `/v2/usage/job/${pushed.body.id}`)],
      ['getCredits', await call('GET', '/v2/usage/credits')],
      ['getConcurrency', await call('GET', '/v2/user/concurrency')],
      ['getComputeAvailability', await call('GET', '/v2/services/compute')],
      ['listJobWebhooks', await call('GET', `/v2/jobs/${pushed.body.id}/webhooks`)],
      ['getOrganization', await call('GET', '/v2/organization')],
      ['createUpload', await call('POST', '/v2/uploads', { size: 10 })],
      ['cancelJob', await call('DELETE', `/v2/jobs/${pushed.body.id}`)],
      ['getJob', await call('GET', '/v2/jobs/no-such-job')],
      ['pushJob', await call('POST', '/v2/push', { inputs: 'not inputs' })],
    ];
    expect(answers.map(([, answer]) => answer.status)).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201, 400, 404, 422,
    ]);
    for (const [operationId, { status, body }] of answers)
      expect([operationId, status, answerProblems(operationId, status, body)]).toEqual([operationId, status, []]);
  }, 240_000);

  it('renders a reference page with every operation, its answers and a curl line, needing nothing from elsewhere', async () => {
    const response = await fetch(`${service.url}/docs/api`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    for (const route of ROUTES) {
      expect(page).toContain(`id="${route.name}"`);
      expect(page).toContain(`<code>${route.path}</code>`);
    }
    expect(page.match(/<pre>curl /g)).toHaveLength(ROUTES.length);
    expect(page).toContain('-d &#39;{&#34;function&#34;:&#34;my-org/echo&#34;');
    expect(page).not.toMatch(/<script|<link|src="http|@import/);
  });
});
