import { createRouteHandler } from '../../shared/http/routeHandler.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { awsApp, logger } from '../lambdaApp.js';

/**
 * The Lambda entry of every HTTP route: the route is named by SLUICE_ROUTE, set per function
 * by the API stack from the route table, so each route still gets its own function (and its
 * own permissions) while all share one bundle.
 */
const route = ROUTES.find((candidate) => candidate.name === process.env.SLUICE_ROUTE);
if (!route) throw new Error(`SLUICE_ROUTE "${process.env.SLUICE_ROUTE}" names no route`);

export const handler = createRouteHandler(route, async () => awsApp().services, logger);
