import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/http/routeTable.js';

describe('the route table describes every answer', () => {
  it('gives every keyed route its answer (a schema, a media type or a redirect), so the API document and the generated client types cover it', () => {
    const undescribed = ROUTES.filter(
      (route) => !route.public && route.response?.schema === undefined && route.response?.contentType === undefined && route.response?.status !== 307,
    ).map((route) => `${route.method} ${route.path}`);
    expect(undescribed).toEqual([]);
  });
});
