import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors';
import { newApiKey, newId, sha256Hex } from '../../lib/ids';
import { ApiKey } from '../../models/api-key';
import { Organization } from '../../models/organization';
import { loadOwned } from './ownership';
import type { Scope } from './scope';

/** A newly created key: the stored row plus the plaintext key, which is shown this once only. */
export interface CreatedApiKey {
  key: ApiKey;
  apiKey: string;
}

/**
 * The organization's API keys, newest first, revoked ones included (their `revoked_at` set). Only
 * ids, names and prefixes: the key itself is stored as a SHA-256 and never shown again
 * (docs/api-reference.md "Authentication").
 */
export async function listApiKeys(knex: Knex, scope: Scope): Promise<ApiKey[]> {
  return ApiKey.query(knex)
    .where({ organization_id: scope.organizationId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/**
 * Creates an API key of an organization (`ck_` + 32 random bytes, base62; docs/api-reference.md "Authentication"). With
 * `personId`, the key acts for that person of the organization with their role (the
 * tool server's key, src/dashboard/cli-login.ts); without, it acts as admin.
 * @returns the stored key and its plaintext, to show once
 * @throws NotFoundError (404) for an unknown organization (operators' `ops key create`)
 */
export async function createApiKey(knex: Knex, organizationId: string, name: string, personId: string | null = null): Promise<CreatedApiKey> {
  const org = await Organization.query(knex).findById(organizationId);
  if (!org) throw new NotFoundError('Organization not found');
  const apiKey = newApiKey();
  const key = await ApiKey.query(knex).insertAndFetch({
    id: newId(),
    organization_id: organizationId,
    name,
    key_hash: sha256Hex(apiKey),
    key_prefix: apiKey.slice(0, 10),
    person_id: personId,
  });
  return { key, apiKey };
}

/**
 * The keys of the person signed in (their tool servers' keys), newest first, revoked
 * ones included; none for a key or user-token scope.
 */
export async function listOwnKeys(knex: Knex, scope: Scope): Promise<ApiKey[]> {
  if (scope.principal.kind !== 'person') return [];
  return ApiKey.query(knex)
    .where({ organization_id: scope.organizationId, person_id: scope.principal.id })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/**
 * Revokes a key of the person signed in (any role may revoke their own keys), like
 * {@link revokeApiKey}.
 * @throws NotFoundError (404) unknown key, or a key that is not the person's
 */
export async function revokeOwnKey(knex: Knex, scope: Scope, keyId: string): Promise<ApiKey> {
  const key = /^[0-9a-f-]{36}$/i.test(keyId) ? await ApiKey.query(knex).findById(keyId) : undefined;
  if (!key || scope.principal.kind !== 'person' || key.person_id !== scope.principal.id || key.organization_id !== scope.organizationId)
    throw new NotFoundError('API key not found');
  return revokeKey(knex, key);
}

/**
 * Revokes one of the scope organization's keys: every request with it is refused (401) from now
 * on, since authentication reads `revoked_at` on each request (src/services/access/auth.ts).
 * Revoking a revoked key keeps its first revocation time.
 * @throws NotFoundError (404) unknown key; ForbiddenError (403) another organization's
 */
export async function revokeApiKey(knex: Knex, scope: Scope, keyId: string): Promise<ApiKey> {
  const key = await loadOwned<ApiKey>(knex, ApiKey, keyId, scope, 'API key not found');
  return revokeKey(knex, key);
}

/**
 * Revokes a key by id whatever its organization (operators' `ops key revoke`).
 * @throws NotFoundError (404) unknown key
 */
export async function revokeApiKeyById(knex: Knex, keyId: string): Promise<ApiKey> {
  const key = await ApiKey.query(knex).findById(keyId);
  if (!key) throw new NotFoundError('API key not found');
  return revokeKey(knex, key);
}

async function revokeKey(knex: Knex, key: ApiKey): Promise<ApiKey> {
  if (key.revoked_at) return key;
  return ApiKey.query(knex).patchAndFetchById(key.id, { revoked_at: new Date() });
}
