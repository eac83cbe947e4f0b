import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { checkedLookup, literalAddressRefusal, RefusedAddress } from './checkedLookup.js';
import type { SendResult, WebhookSender } from '../ports/webhookSender.js';

/**
 * Sends with node's HTTP client, checking the address the connection actually uses: the
 * check runs inside DNS lookup, so a name that resolved to a public address when the webhook
 * was given cannot be re-pointed at an internal one later. Redirects are not followed.
 */
export function createHttpWebhookSender(options: { allowed: readonly RestrictedKind[]; timeoutMs: number }): WebhookSender {
  const lookup = checkedLookup(options.allowed);
  return ({ url, body, headers, timeoutMs = options.timeoutMs }) =>
    new Promise<SendResult>((resolve) => {
      const target = new URL(url);
      const literal = literalAddressRefusal(target, options.allowed);
      if (literal) return resolve({ status: null, error: literal, permanent: true });
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        target,
        { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, timeout: timeoutMs },
        (response) => {
          response.resume(); // the answer's body is not read, only its status
          response.on('end', () =>
            resolve({ status: response.statusCode ?? null, error: response.statusCode === 200 ? null : `HTTP ${response.statusCode}`, permanent: false }),
          );
          response.on('error', () => resolve({ status: response.statusCode ?? null, error: 'the answer was cut off', permanent: false }));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      request.on('error', (error) => resolve({ status: null, error: error.message, permanent: error instanceof RefusedAddress }));
      request.end(body);
    });
}
