import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from '../../lib/errors';
import { IdempotencyKey } from '../../models/idempotency-key';

/** How long an answer is replayed for a repeated key ("within 24 h"). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long a running request's claim holds without renewal, ms. The request renews it every
 * third of that while its handler runs; a repeat after it lapsed (the process died) takes the key
 * over and runs the request.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;

/** A valid `Idempotency-Key`: 1–255 visible ASCII characters (UUIDs, ULIDs, client-made strings). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The answer a handler produced, as remembered and replayed. */
export interface RememberedAnswer {
  status: number;
  body: unknown;
}

/**
 * SHA-256 of what makes two requests "the same": method, route path, path parameters, query and
 * body (as JSON with object keys sorted, so key order does not matter).
 */
export function requestHash(parts: { method: string; route: string; params: unknown; query: unknown; body: unknown }): string {
  return crypto.createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The id of what a request with this `Idempotency-Key` creates when it starts a workflow (an
 * enrichment job, a sheet import, a flow run): a UUID (version 8, RFC 9562 §5.8) from SHA-256 of
 * the organization, the key and when the key was claimed. Every retry within the claim (the
 * 24 h window, a takeover after a lapsed lease) derives the same id, so a retry of a request
 * whose process died after creating it, before its answer was stored, finds what the first
 * attempt wrote instead of creating it again; a key claimed anew (after the window, or after a
 * failed attempt was forgotten) gives a new id.
 */
export function idempotentResourceId(organizationId: string, key: string, claimedAt: Date): string {
  const h = crypto.createHash('sha256').update(`${organizationId}\n${key}\n${claimedAt.toISOString()}`).digest();
  h[6] = (h[6] & 0x0f) | 0x80; // version 8
  h[8] = (h[8] & 0x3f) | 0x80; // RFC 9562 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** The end of a claim's lease from now. */
function leaseUntil(): Date {
  return new Date(Date.now() + IDEMPOTENCY_LEASE_MS);
}

/**
 * Runs `handler` at most once per (organization, `Idempotency-Key`) within 24 h (the IETF draft "The Idempotency-Key HTTP Header Field"): the first request runs and its
 * successful answer is stored; a repeat with the same request gets that answer again without
 * running anything (so a job is created, and charged, once); a repeat with another request is a
 * 422; a repeat while the first still runs is a 409. A failed first request (an error status or
 * a thrown error) is forgotten, so the client may retry it. The running request's claim is a
 * lease it renews ({@link IDEMPOTENCY_LEASE_MS}); a repeat after the lease lapsed (the process
 * that ran it died) takes the key over and runs the request.
 *
 * `atomic` (an atomic route, src/routes/registry.ts): the handler runs in a transaction it is
 * given, and a successful answer is stored in that same transaction, so the writes and the answer
 * commit together: a process dying before the commit leaves neither (a retry after the lease runs
 * the request once), after it both (a retry replays). Otherwise the handler gets `knex` and the
 * answer is stored after it returns; the handler's second argument ({@link idempotentResourceId})
 * lets it give what it creates an id its retries find, so a process dying between the two does
 * not create it twice.
 * @returns the answer, and whether it was replayed
 * @throws ValidationError (422) malformed key or key reused for another request; ConflictError
 *   (409) the first request with this key is still running
 */
export async function runIdempotent(
  knex: Knex,
  organizationId: string,
  key: string,
  hash: string,
  handler: (db: Knex, resourceId: string) => Promise<RememberedAnswer>,
  atomic = false,
): Promise<RememberedAnswer & { replayed: boolean }> {
  if (!KEY_PATTERN.test(key)) throw ValidationError.at(['header', 'idempotency-key'], 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  const expiredBefore = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS);
  await IdempotencyKey.query(knex).where({ organization_id: organizationId, idempotency_key: key }).where('created_at', '<', expiredBefore).delete();
  const claimed = await knex('idempotency_keys')
    .insert({ organization_id: organizationId, idempotency_key: key, request_hash: hash, lease_until: leaseUntil() })
    .onConflict(['organization_id', 'idempotency_key'])
    .ignore()
    .returning('created_at');
  let claimedAt: Date = claimed[0]?.created_at;
  if (claimed.length === 0) {
    const first = await IdempotencyKey.query(knex).findById([organizationId, key]);
    if (!first) throw new ConflictError('A request with this Idempotency-Key was just forgotten; retry it');
    if (first.request_hash !== hash) {
      throw ValidationError.at(['header', 'idempotency-key'], 'This Idempotency-Key was used for a different request', 'value_error.idempotency_key_reused');
    }
    if (first.status !== null) return { status: first.status, body: first.response, replayed: true };
    // The first request still runs, unless its lease lapsed (its process died): then this one takes over.
    const taken = await IdempotencyKey.query(knex)
      .findById([organizationId, key])
      .whereNull('status')
      .where((q) => q.whereNull('lease_until').orWhere('lease_until', '<', new Date()))
      .patch({ lease_until: leaseUntil() });
    if (taken === 0) throw new ConflictError('The first request with this Idempotency-Key is still running; retry later');
    claimedAt = first.created_at;
  }
  const resourceId = idempotentResourceId(organizationId, key, claimedAt);
  const forget = async (): Promise<void> => {
    await IdempotencyKey.query(knex).deleteById([organizationId, key]);
  };
  let answer: RememberedAnswer;
  const renew = setInterval(() => {
    void IdempotencyKey.query(knex)
      .findById([organizationId, key])
      .whereNull('status')
      .patch({ lease_until: leaseUntil() })
      .catch(() => undefined); // a missed renewal only lets a repeat take over sooner
  }, IDEMPOTENCY_LEASE_MS / 3);
  const succeeded = (a: RememberedAnswer) => a.status >= 200 && a.status < 300;
  const remember = async (db: Knex, a: RememberedAnswer) => {
    await IdempotencyKey.query(db)
      .findById([organizationId, key])
      // Stored as JSON text: any JSON value, not only objects (the column is jsonb).
      .patch({ status: a.status, response: JSON.stringify(a.body ?? null) });
  };
  try {
    answer = atomic
      ? await knex.transaction(async (trx) => {
          const a = await handler(trx, resourceId);
          if (succeeded(a)) await remember(trx, a);
          return a;
        })
      : await handler(knex, resourceId);
  } catch (err) {
    await forget();
    throw err;
  } finally {
    clearInterval(renew);
  }
  if (!succeeded(answer)) await forget();
  else if (!atomic) await remember(knex, answer);
  return { ...answer, replayed: false };
}
