import type { JsonSchema } from './jsonSchemas.js';
import type { OpenApiDocument, OpenApiOperation } from './openApiDocument.js';
import { escapeHtml, prose, schemaOutline } from './schemaOutline.js';

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
h2{border-bottom:1px solid #d8dde3;padding-bottom:.3rem;margin-top:2.5rem}section.op{border:1px solid #d8dde3;border-radius:6px;padding:.2rem 1rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.2rem;font:bold 13px monospace;padding:.15rem .4rem;border-radius:4px;color:#fff;background:#3a6ea5;text-align:center}
.POST{background:#2f8a4c}.DELETE{background:#b03a2e}pre{background:#f3f5f7;padding:.7rem;overflow-x:auto;border-radius:4px}
table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #e4e8ec;padding:.3rem .5rem;vertical-align:top;text-align:left}
ul{margin:.2rem 0;padding-left:1.3rem}.optional,.default{color:#6a737d;font-size:13px}nav li{list-style:none}code{font-size:13px}`;

/**
 * The API reference as one HTML page, made on the server from the API document: every
 * operation with its parameters, body, answers and a curl line. No script, nothing fetched.
 */
export function apiReferencePage(document: OpenApiDocument): string {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  );
  const byTag = document.tags
    .map((tag) => ({ tag, operations: operations.filter(({ operation }) => operation.tags.includes(tag.name)) }))
    .filter(({ operations: tagged }) => tagged.length > 0);
  const nav = byTag
    .map(
      ({ tag, operations: tagged }) =>
        `<li><strong>${escapeHtml(tag.name)}</strong><ul>${tagged.map(({ operation }) => `<li><a href="#${operation.operationId}">${prose(operation.summary ?? operation.operationId)}</a></li>`).join('')}</ul></li>`,
    )
    .join('');
  const sections = byTag
    .map(
      ({ tag, operations: tagged }) =>
        `<h2>${escapeHtml(tag.name)}</h2><p>${escapeHtml(tag.description)}</p>${tagged.map((entry) => operationSection(entry.method, entry.path, entry.operation, document.components.schemas)).join('')}`,
    )
    .join('');
  const schemas = Object.entries(document.components.schemas)
    .map(
      ([name, schema]) =>
        `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${typeof schema.description === 'string' ? `<p>${prose(schema.description)}</p>` : ''}${schemaOutline(schema)}</section>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} reference</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(document.info.title)} <small>${escapeHtml(document.info.version)}</small></h1>
${document.info.description
  .split('\n\n')
  .map((paragraph) => `<p>${prose(paragraph)}</p>`)
  .join('')}
<p>The examples read the service's address from <code>SLUICE_URL</code> and a key from <code>SLUICE_API_KEY</code>. The machine-readable document (OpenAPI 3.1): <a href="/openapi.json">/openapi.json</a>.</p>
<nav><ul>${nav}</ul></nav>${sections}<h2>Schemas</h2>${schemas}</body></html>
`;
}

function operationSection(method: string, path: string, operation: OpenApiOperation, schemas: Record<string, JsonSchema>): string {
  const parameters =
    operation.parameters.length === 0
      ? ''
      : `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th></tr>${operation.parameters
          .map(
            (parameter) =>
              `<tr><td><code>${escapeHtml(parameter.name)}</code>${parameter.required ? '' : ' <span class="optional">optional</span>'}${parameter.schema.default === undefined ? '' : ` <span class="default">default ${escapeHtml(JSON.stringify(parameter.schema.default))}</span>`}</td><td>${parameter.in}</td><td>${schemaOutline(parameter.schema)}${typeof parameter.schema.description === 'string' ? ` — ${prose(parameter.schema.description)}` : ''}</td></tr>`,
          )
          .join('')}</table>`;
  const body = operation.requestBody?.content['application/json'];
  // A request body is the operation's own: shown in place, not behind a link.
  const requestBody = body ? `<h4>Body (JSON)</h4>${schemaOutline(schemas[String(body.schema.$ref).split('/').pop() as string] ?? body.schema)}` : '';
  const responses = `<h4>Answers</h4><table>${Object.entries(operation.responses)
    .map(([status, response]) => {
      const [type, media] = Object.entries(response.content ?? {})[0] ?? [];
      const shape = media ? (type === 'application/json' ? schemaOutline(media.schema) : escapeHtml(type as string)) : '';
      return `<tr><td><strong>${status}</strong></td><td>${escapeHtml(response.description)}</td><td>${shape}</td></tr>`;
    })
    .join('')}</table>`;
  const about = operation.description ? `<p>${prose(operation.description)}</p>` : '';
  return `<section class="op" id="${operation.operationId}"><h3><span class="method ${method}">${method}</span> <code>${escapeHtml(path)}</code></h3>
<p>${prose(operation.summary ?? '')}${operation.security ? ' <em>No API key needed.</em>' : ''}</p>${about}${parameters}${requestBody}${responses}<h4>Example</h4><pre>${escapeHtml(curlExample(method, path, operation))}</pre></section>`;
}

/** A curl line for the operation: path parameters as placeholders, the body from the route's example. */
export function curlExample(method: string, path: string, operation: OpenApiOperation): string {
  const streamed = operation.responses['200']?.content?.['text/event-stream'] !== undefined;
  const lines = [
    `curl${operation.responses['307'] ? ' -L' : ''}${streamed ? ' -N' : ''}${method === 'GET' ? '' : ` -X ${method}`} "$SLUICE_URL${path.replace(/\{(\w+)\}/g, '<$1>')}"`,
  ];
  if (!operation.security) lines.push('  -H "X-API-Key: $SLUICE_API_KEY"');
  const body = operation.requestBody?.content['application/json'];
  if (body) lines.push('  -H "content-type: application/json"', `  -d '${JSON.stringify(body.example ?? {})}'`);
  return lines.join(' \\\n');
}
