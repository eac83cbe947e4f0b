import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/http/routeTable.js';
import { AUTHENTICATION, ROUTE_PERMISSIONS, mergePermissions, routePermissions } from '../../infra/routePermissions.js';

describe('route permissions', () => {
  it('names every route of the route table, and only those', () => {
    expect(Object.keys(ROUTE_PERMISSIONS).sort()).toEqual(ROUTES.map((route) => route.name).sort());
  });

  it('lets every route authenticate: read the api_keys and organizations tables', () => {
    for (const route of ROUTES) {
      const tables = routePermissions(route.name).tables ?? {};
      for (const table of Object.keys(AUTHENTICATION.tables ?? {})) expect(tables[table as keyof typeof tables], `${route.name} ${table}`).toMatch(/^read(Write)?$/);
    }
  });

  it('refuses a route without an entry, so a new route cannot ship with no permissions by mistake', () => {
    expect(() => routePermissions('newRoute')).toThrow(/no entry for route "newRoute"/);
  });

  it('merges permission sets, the stronger table access winning', () => {
    const merged = mergePermissions({ tables: { jobs: 'readWrite', logs: 'read' }, queues: ['send'] }, { tables: { jobs: 'read', versions: 'read' }, queues: ['send', 'consume'], startBuilds: true });
    expect(merged.tables).toEqual({ jobs: 'readWrite', logs: 'read', versions: 'read' });
    expect(merged.queues).toEqual(['send', 'consume']);
    expect(merged.startBuilds).toBe(true);
    expect(merged.startDeliveries).toBe(false);
  });
});
