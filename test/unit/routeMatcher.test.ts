import { describe, expect, it } from 'vitest';
import { pathParametersOf, RouteMatcher } from '../../shared/http/routeMatcher.js';
import { ROUTES } from '../../shared/http/routeTable.js';

const routeNamed = (name: string) => ROUTES.find((route) => route.name === name)!;

describe('route matching', () => {
  it('finds the route and decodes its path parameters', () => {
    const match = new RouteMatcher(ROUTES).match('GET', '/v2/functions/acme/my%20fn/versions/latest');
    expect(match).toEqual({ kind: 'found', route: routeNamed('getVersion'), params: { owner_name: 'acme', function_name: 'my fn', version_slug: 'latest' } });
  });

  it('tells a known path with another method from an unknown path', () => {
    const matcher = new RouteMatcher(ROUTES);
    expect(matcher.match('PUT', '/v2/jobs/abc').kind).toBe('wrong_method');
    expect(matcher.match('GET', '/v2/nothing').kind).toBe('none');
  });

  it('reads path parameters from the raw path, for events that carry none (Lambda function URLs)', () => {
    expect(pathParametersOf(routeNamed('awaitJob'), '/v2/jobs/job-123/await')).toEqual({ job_id: 'job-123' });
    expect(pathParametersOf(routeNamed('awaitJob'), '/v2/jobs/job-123')).toBeNull();
  });
});

describe('route matching of malformed paths', () => {
  it('finds no route for a path parameter with a malformed percent-encoding, instead of throwing', () => {
    expect(new RouteMatcher(ROUTES).match('GET', '/v2/jobs/%E0%A4%A').kind).toBe('none');
    expect(pathParametersOf(routeNamed('awaitJob'), '/v2/jobs/%zz/await')).toBeNull();
  });
});
