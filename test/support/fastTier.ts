import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, afterEach } from 'vitest';

/**
 * Setup file of the fast tier (`npm run test:fast`, vitest project `fast`): its specs must be pure,
 * starting no process and opening no socket (not even a localhost server), so that the tier runs
 * in seconds on any machine. This makes every way to do either throw, at the call, with the
 * message below; and since code under test may catch that error (a fallback when a program is
 * missing, say), each test that tried also fails afterwards. A spec that needs real processes,
 * servers or Python belongs in test/integration/ (or the other slow folders), which run only in
 * the full suite (`npm test`).
 */

const MESSAGE = 'a fast spec may not start processes or open sockets: move it to test/integration/';

interface Guard {
  tried: string[];
}

const GUARD_KEY = Symbol.for('sluice.fastTier.guard');
const holder = globalThis as unknown as Record<symbol, Guard | undefined>;

function refuse(what: string): never {
  holder[GUARD_KEY]?.tried.push(what);
  throw new Error(`${MESSAGE} (it called ${what})`);
}

function block(target: object, name: string, what: string): void {
  const owner = target as Record<string, unknown>;
  if (typeof owner[name] !== 'function') return;
  owner[name] = function blocked(): never {
    return refuse(what);
  };
}

function install(): Guard {
  const guard: Guard = { tried: [] };
  holder[GUARD_KEY] = guard;

  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    block(childProcess, name, `child_process.${name}`);
  }
  // Every asynchronous child process goes through ChildProcess#spawn, whatever made it.
  block(childProcess.ChildProcess.prototype, 'spawn', 'ChildProcess#spawn');

  for (const name of ['connect', 'createConnection', 'createServer']) block(net, name, `net.${name}`);
  // Every TCP or IPC-socket connection (http clients, undici's fetch, tls) and every listening
  // server (http.Server, net.Server, tls.Server) goes through these two.
  block(net.Socket.prototype, 'connect', 'net.Socket#connect');
  block(net.Server.prototype, 'listen', 'net.Server#listen');
  for (const name of ['connect', 'createServer']) block(tls, name, `tls.${name}`);
  for (const name of ['request', 'get', 'createServer']) {
    block(http, name, `http.${name}`);
    block(https, name, `https.${name}`);
  }
  for (const name of ['connect', 'createServer', 'createSecureServer']) block(http2, name, `http2.${name}`);
  block(dgram, 'createSocket', 'dgram.createSocket');
  block(globalThis, 'fetch', 'fetch');
  block(globalThis, 'WebSocket', 'WebSocket');
  block(globalThis, 'EventSource', 'EventSource');

  // `import { spawn } from 'node:child_process'` reads the ESM view of the built-in; bring it in line.
  syncBuiltinESMExports();
  return guard;
}

const guard = holder[GUARD_KEY] ?? install();

function failIfTried(): void {
  const tried = guard.tried.splice(0);
  if (tried.length > 0) throw new Error(`${MESSAGE} (it called ${[...new Set(tried)].join(', ')})`);
}

afterEach(failIfTried);
afterAll(failIfTried);
