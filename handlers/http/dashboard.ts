import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { dashboardAnswer } from '../../shared/http/dashboard/dashboardSite.js';

/** The dashboard's build, copied beside this bundle by infra/bundle.ts (web/dist as dashboard/). */
const DIRECTORY = join(dirname(fileURLToPath(import.meta.url)), 'dashboard');

/**
 * The dashboard on AWS: the API's `GET /`, `GET /{file}` and `GET /assets/{file}` routes, the
 * same files and headers the local gateway serves (shared/http/dashboard/dashboardSite.ts).
 * It reads nothing of any organization: the page calls the API with the key typed into it.
 */
export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const answer = dashboardAnswer(DIRECTORY, event.rawPath);
  if (!answer) return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ detail: 'Not Found' }) };
  return { statusCode: answer.status, headers: answer.headers, body: answer.body.toString('base64'), isBase64Encoded: true };
}
