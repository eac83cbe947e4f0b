import { hash, randomBytes } from 'node:crypto';
import type { Micros } from './time.js';

/** A stored API key: only its SHA-256 hash and a short prefix to recognise it by are kept. */
export interface ApiKey {
  id: string;
  organizationId: string;
  hash: string;
  prefix: string;
  createdAt: Micros;
  revokedAt: Micros | null;
}

const KEY_PREFIX = 'sk_';

/** A new key: 32 random bytes, so a fast hash is enough (there is nothing to brute-force). */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256, hex: every request's key goes through it, so the one-shot hash (no Hash object). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What `sluice keys list` shows of a key: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 6);
}

/** A new active key of an organization, with its secret (shown once, never stored). */
export function newApiKey(id: string, organizationId: string, createdAt: Micros, secret: string = generateApiKey()): { key: ApiKey; secret: string } {
  return { key: { id, organizationId, hash: hashApiKey(secret), prefix: displayPrefix(secret), createdAt, revokedAt: null }, secret };
}
