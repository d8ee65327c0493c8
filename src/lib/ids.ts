import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** A new UUID v4 string; every resource id is one (docs/api-reference.md "Identifiers and timestamps"). */
export function newId(): string {
  return randomUUID();
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Encodes bytes as base62 (big-endian). */
function base62(bytes: Buffer): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

/** A new API key: `ck_` + 32 random bytes in base62 (docs/api-reference.md "Authentication"). */
export function newApiKey(): string {
  return 'ck_' + base62(randomBytes(32));
}

/** SHA-256 hex of a secret; API keys are stored only in this form (docs/api-reference.md "Authentication"). */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

/** True when `value` is a UUID string (any version); used to 404 early on malformed ids. */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
