import packageJson from '../../../package.json' with { type: 'json' };
import { apiReferencePage } from '../openapi/apiReferencePage.js';
import type { OpenApiDocument } from '../openapi/openApiDocument.js';
import { openApiDocument } from '../openapi/openApiDocument.js';
import { defineRoute } from '../route.js';
import { ROUTES } from '../routeTable.js';

// Made once per process, at the first request: the route table does not change while it runs.
let document: OpenApiDocument | undefined;
const theDocument = () => (document ??= openApiDocument(ROUTES, packageJson.version));
let page: string | undefined;

/** The API's OpenAPI 3.1 document, made from the route table's own schemas. */
export const getOpenApiDocument = defineRoute({
  name: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  public: true,
  summary: 'This API as an OpenAPI 3.1 document',
  response: { description: 'The OpenAPI 3.1 document.', contentType: 'application/json' },
  handle: async () => ({ body: theDocument() }),
});

/** The same document as a page to read: every operation with its parameters, body, answers and a curl line. */
export const getApiReference = defineRoute({
  name: 'getApiReference',
  method: 'GET',
  path: '/docs/api',
  public: true,
  summary: 'This API’s reference, as a web page',
  response: { description: 'The reference, one self-contained HTML page.', contentType: 'text/html' },
  handle: async () => ({ text: (page ??= apiReferencePage(theDocument())), contentType: 'text/html; charset=utf-8' }),
});
