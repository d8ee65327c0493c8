import type { Knex } from 'knex';
import { idempotentResourceId } from '../../src/services/access/idempotency';

/**
 * The id a request with `Idempotency-Key: key` gave what it created (src/services/access/idempotency.ts
 * idempotentResourceId), from the key's claim as stored.
 * @throws Error when the organization holds no claim of the key
 */
export async function idempotentIdOf(knex: Knex, organizationId: string, key: string): Promise<string> {
  const claim = (await knex('idempotency_keys').where({ organization_id: organizationId, idempotency_key: key }).first('created_at')) as
    { created_at: Date } | undefined;
  if (!claim) throw new Error(`no claim of Idempotency-Key ${key}`);
  return idempotentResourceId(organizationId, key, claim.created_at);
}

/** Makes a key's claim look like that of a request whose process died before storing its answer: no answer, its lease lapsed. */
export async function loseAnswer(knex: Knex, organizationId: string, key: string): Promise<void> {
  await knex('idempotency_keys')
    .where({ organization_id: organizationId, idempotency_key: key })
    .update({ status: null, response: null, lease_until: new Date(Date.now() - 1000) });
}
