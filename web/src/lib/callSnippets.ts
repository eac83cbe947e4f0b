import type { InputOutput } from '../api/types.js';

/** An example value for an input: its default, else one of its type. */
function exampleValue(input: InputOutput): unknown {
  if (input.data !== null && input.data !== undefined) return input.data;
  if (isFileType(input.type)) return { url: 'https://example.com/file.mp4' };
  switch (input.type) {
    case 'int':
      return 1;
    case 'float':
      return 1.5;
    case 'bool':
      return true;
    case 'dict':
      return {};
    case 'list':
      return [];
    default:
      return input.name;
  }
}

export const isFileType = (type: string) => /(^|\.)(File|Image|Video|Audio)$/.test(type);

export function exampleInputs(inputs: InputOutput[]): Record<string, unknown> {
  return Object.fromEntries(inputs.filter((input) => !input.is_optional).map((input) => [input.name, exampleValue(input)]));
}

const pythonLiteral = (value: unknown): string => {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as object)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonLiteral(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
};

/** Ready-to-paste calls of `owner/name` with example inputs: curl, Python (the sluice SDK), TypeScript (fetch). */
export function callSnippets(baseUrl: string, fn: string, inputs: InputOutput[]): { curl: string; python: string; typescript: string } {
  const example = exampleInputs(inputs);
  const body = JSON.stringify({ function: fn, inputs: example });
  const curl = [
    `curl -s -X POST ${baseUrl}/v2/push \\`,
    `  -H "X-API-Key: $SLUICE_API_KEY" -H "Content-Type: application/json" \\`,
    `  -d '${body.replace(/'/g, "'\\''")}'`,
    `# then: curl -s ${baseUrl}/v2/jobs/JOB_ID/await -H "X-API-Key: $SLUICE_API_KEY"`,
  ].join('\n');
  const pythonArgs = Object.entries(example)
    .map(([name, value]) => `${name}=${pythonLiteral(value)}`)
    .join(', ');
  const python = [
    `# pip install ./python; SLUICE_URL=${baseUrl} SLUICE_API_KEY=...`,
    'import sluice',
    '',
    `fn = sluice.function.get(${JSON.stringify(fn)})`,
    `print(fn.run(${pythonArgs}))`,
  ].join('\n');
  const typescript = [
    `const base = ${JSON.stringify(baseUrl)};`,
    `const headers = { 'X-API-Key': process.env.SLUICE_API_KEY!, 'Content-Type': 'application/json' };`,
    `const job = await (await fetch(\`\${base}/v2/push\`, { method: 'POST', headers, body: JSON.stringify(${JSON.stringify({ function: fn, inputs: example })}) })).json();`,
    `const done = await (await fetch(\`\${base}/v2/jobs/\${job.id}/await\`, { headers })).json();`,
    'console.log(done.outputs);',
  ].join('\n');
  return { curl, python, typescript };
}
