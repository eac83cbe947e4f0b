import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/http/routeTable.js';
import {
  AUTHENTICATION,
  ROLE_PERMISSIONS,
  ROUTE_PERMISSIONS,
  bucketAccess,
  mergePermissions,
  routePermissions,
  type Permissions,
} from '../../infra/routePermissions.js';

describe('route permissions', () => {
  it('names every route of the route table, and only those', () => {
    expect(Object.keys(ROUTE_PERMISSIONS).sort()).toEqual(ROUTES.map((route) => route.name).sort());
  });

  it('keeps the stronger table access when merging: read, then marking a budget warning, then readWrite', () => {
    expect(mergePermissions({ tables: { organizations: 'markBudgetWarned' } }, { tables: { organizations: 'read' } }).tables).toEqual({
      organizations: 'markBudgetWarned',
    });
    expect(mergePermissions({ tables: { organizations: 'read' } }, { tables: { organizations: 'markBudgetWarned' } }).tables).toEqual({
      organizations: 'markBudgetWarned',
    });
    expect(mergePermissions({ tables: { organizations: 'readWrite' } }, { tables: { organizations: 'markBudgetWarned' } }).tables).toEqual({
      organizations: 'readWrite',
    });
  });

  it('lets every route authenticate: read the api_keys and organizations tables', () => {
    for (const route of ROUTES) {
      const tables = routePermissions(route.name).tables ?? {};
      for (const table of Object.keys(AUTHENTICATION.tables ?? {}))
        expect(tables[table as keyof typeof tables], `${route.name} ${table}`).toMatch(/^(read|markBudgetWarned|readWrite)$/);
    }
  });

  it('refuses a route without an entry, so a new route cannot ship with no permissions by mistake', () => {
    expect(() => routePermissions('newRoute')).toThrow(/no entry for route "newRoute"/);
  });

  it('merges permission sets, the stronger table access winning', () => {
    const merged = mergePermissions(
      { tables: { jobs: 'readWrite', logs: 'read' }, queues: ['send'] },
      { tables: { jobs: 'read', versions: 'read' }, queues: ['send', 'consume'], startBuilds: true },
    );
    expect(merged.tables).toEqual({ jobs: 'readWrite', logs: 'read', versions: 'read' });
    expect(merged.queues).toEqual(['send', 'consume']);
    expect(merged.startBuilds).toBe(true);
    expect(merged.startDeliveries).toBe(false);
  });

  it('lets every route that shows a job’s outputs read files/ (the signer of their URLs must), and write none of it', () => {
    for (const name of ['getJob', 'listJobs', 'awaitJob', 'listFunctionJobs', 'listVersionJobs', 'cancelJob', 'resendJobWebhooks']) {
      const access = bucketAccess(routePermissions(name));
      expect([name, access.read.includes('files/'), access.write.includes('files/')]).toEqual([name, true, false]);
    }
  });

  it('lets every role that reads jobs, outputs or deliveries read spill/ (their large values), and every one that writes them write it', () => {
    const roles: [string, Permissions][] = [
      ...ROUTES.map((route): [string, Permissions] => [route.name, routePermissions(route.name)]),
      ...Object.entries(ROLE_PERMISSIONS),
    ];
    for (const [name, permissions] of roles) {
      const spilling = [permissions.tables?.jobs, permissions.tables?.jobOutputs, permissions.tables?.deliveries];
      const access = bucketAccess(permissions);
      expect(access.read.includes('spill/'), `${name} reads spill/`).toBe(spilling.some((level) => level !== undefined));
      expect(access.write.includes('spill/'), `${name} writes spill/`).toBe(spilling.includes('readWrite') && name !== 'deliver');
    }
    // A job read signs its File outputs' GET URLs, which S3 honours only if the role may read files/.
    expect(bucketAccess(routePermissions('getJob')).read).toEqual(['files/', 'spill/']);
    // uploads/ written: a File a job made and passes to another function is kept as an upload.
    expect(bucketAccess(ROLE_PERMISSIONS.worker)).toEqual({ read: ['bundles/', 'files/', 'uploads/', 'spill/'], write: ['files/', 'uploads/', 'spill/'] });
    // The deliver step only records attempts on a delivery: it reads a spilled payload, never writes
    // one; it reads files/ to presign the File URLs each attempt sends.
    expect(bucketAccess(ROLE_PERMISSIONS.deliver)).toEqual({ read: ['files/', 'spill/'], write: [] });
  });
});
