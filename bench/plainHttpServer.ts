// The trivial GET's peer: a plain node:http server answering what GET /v2/organization answers
// (the same JSON), checking the key by comparing it with the one it was given. Prints its URL.
import { createServer } from 'node:http';

const [apiKey, body] = [process.argv[2] as string, process.argv[3] as string];
const server = createServer((request, response) => {
  if (request.headers['x-api-key'] !== apiKey) {
    response.writeHead(401, { 'content-type': 'application/json' });
    return void response.end('{"detail":"Unauthorized"}');
  }
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
