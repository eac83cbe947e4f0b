import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../../shared/app/dashboardDirectory.js';
import { dashboardBuilt } from '../../shared/http/dashboard/dashboardSite.js';
import type { TestService } from './support/testService.js';
import { startTestService } from './support/testService.js';

describe('the dashboard beside the API', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('answers / with the dashboard, or with how to build it: never a bare 404', async () => {
    const answer = await fetch(`${service.url}/`);
    if (dashboardBuilt(DASHBOARD_DIR)) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    } else {
      expect(answer.status).toBe(503);
      expect(await answer.text()).toContain('npm run build');
    }
  });

  it('never shadows the API: /v2/ paths answer as the route table says, and other methods than GET find no page', async () => {
    const unknown = await fetch(`${service.url}/v2/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Not Found' });
    expect((await fetch(`${service.url}/v2/jobs`)).status).toBe(401);
    expect((await fetch(`${service.url}/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${service.url}/no-such-file.js`)).status).toBe(404);
  });
});
