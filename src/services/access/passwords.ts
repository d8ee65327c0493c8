import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes of people: node's built-in scrypt with a random 16-byte salt per
 * password, stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url) so the cost can be raised
 * later without breaking stored hashes; verification compares in constant time.
 */

/** scrypt cost of new hashes: N = 2^15, r = 8, p = 1 (about 32 MiB and ~50 ms). */
const COST = { N: 32768, r: 8, p: 1 };
/** Derived key length in bytes. */
const KEY_BYTES = 32;
/** Shortest password accepted, in characters. */
export const MIN_PASSWORD_LENGTH = 10;

function derive(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...opts, maxmem: 128 * opts.N! * opts.r! * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Hashes a password with a new random salt. @returns `scrypt$N$r$p$salt$hash` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored` (a {@link hashPassword} result); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A random password for a reset by the `ops` CLI (20 base64url characters, 120 bits). */
export function randomPassword(): string {
  return randomBytes(15).toString('base64url');
}
