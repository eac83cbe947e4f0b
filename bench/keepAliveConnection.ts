// The one way the bench's load generators talk to a server: a keep-alive socket on which each
// request is sent as soon as the answer to the last has been read (answerReader.ts).
import { connect } from 'node:net';
import { type Answer, readAnswers } from './answerReader.js';

/** A request to write next, or null to close the connection. */
export type NextRequest = Buffer | string | null;

/**
 * Opens a connection to `target`, sends `first()` once connected, then after each answer what
 * `onAnswer` returns, until either gives null; resolves when the connection has closed.
 */
export function converse(target: URL, first: () => NextRequest, onAnswer: (answer: Answer) => NextRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    const send = (request: NextRequest) => (request === null ? socket.end() : socket.write(request));
    socket.on('connect', () => send(first()));
    socket.on('error', reject);
    socket.on('close', () => resolve());
    readAnswers(socket, (answer) => send(onAnswer(answer)));
  });
}
