import { invocationDeadline } from '../../shared/adapters/aws/invocationDeadline.js';
import { createRouteHandler, type HttpHandler } from '../../shared/http/routeHandler.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { awsApp, logger } from '../lambdaApp.js';

/**
 * The Lambda entry of every HTTP route: the route is named by SLUICE_ROUTE, set per function
 * by the API stack from the route table, so each route still gets its own function (and its
 * own permissions) while all share one bundle.
 */
const route = ROUTES.find((candidate) => candidate.name === process.env.SLUICE_ROUTE);
if (!route) throw new Error(`SLUICE_ROUTE "${process.env.SLUICE_ROUTE}" names no route`);

const routeHandler = createRouteHandler(route, async () => awsApp().services, logger);

/** Its AWS calls stop retrying in time for an answer (a 503) before the function's timeout. */
export const handler: HttpHandler = (event, context) => invocationDeadline.during(context, () => routeHandler(event, context));
