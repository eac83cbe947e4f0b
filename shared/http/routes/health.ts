import { defineRoute } from '../route.js';

/**
 * Liveness and readiness without a key, for load balancers, Docker's HEALTHCHECK and
 * systemd: 200 when the store answers, 503 when it does not. Answers nothing of any organization.
 */
export const health = defineRoute({
  name: 'health',
  method: 'GET',
  path: '/healthz',
  public: true,
  handle: async ({ services }) => {
    const health = await services.health.check();
    return { status: health.status === 'ok' ? 200 : 503, body: health };
  },
});
