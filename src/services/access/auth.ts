import type { Knex } from 'knex';
import { jwtVerify, SignJWT } from 'jose';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import { newApiKey, newId, sha256Hex } from '../../lib/ids';
import { ApiKey } from '../../models/api-key';
import { Organization } from '../../models/organization';
import { Person } from '../../models/person';
import type { Principal, Scope } from './scope';
import { newWebhookSecret } from './webhook-secret';

/**
 * Resolves a bearer token to a principal (docs/api-reference.md "Authentication"): `ck_…` API keys by SHA-256 lookup;
 * anything else as an HS256 JWT user token whose `sub` is the user and whose `org_ids` (or
 * `organizations`) claim lists the user's organizations. A key made for a person (a tool server's) acts as that person with their current role: principal `person`, `role` set.
 * @throws UnauthorizedError (401) for a missing, unknown, revoked or invalid token, or a person's
 *   key whose person is disabled
 */
export async function authenticate(knex: Knex, token: string | undefined, jwtSecret: string | null): Promise<Principal> {
  if (!token) throw new UnauthorizedError('Not authenticated');
  if (token.startsWith('ck_')) {
    const row = await ApiKey.query(knex)
      .select('id', 'organization_id', 'person_id')
      .where({ key_hash: sha256Hex(token) })
      .whereNull('revoked_at')
      .first();
    if (!row) throw new UnauthorizedError('Invalid API key');
    if (row.person_id) {
      const person = await Person.query(knex).select('id', 'role').findById(row.person_id).where({ disabled: false, organization_id: row.organization_id });
      if (!person) throw new UnauthorizedError('Invalid API key');
      return { kind: 'person', id: person.id, organizationIds: [row.organization_id], role: person.role, keyId: row.id };
    }
    return { kind: 'api_key', id: row.id, organizationIds: [row.organization_id], keyId: row.id };
  }
  if (!jwtSecret) throw new UnauthorizedError('Invalid token');
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(jwtSecret), { algorithms: ['HS256'] });
    const orgs = (payload.org_ids ?? payload.organizations) as unknown;
    if (typeof payload.sub !== 'string' || !Array.isArray(orgs) || orgs.length === 0) throw new Error('claims');
    return { kind: 'user', id: payload.sub, organizationIds: orgs.map(String) };
  } catch {
    throw new UnauthorizedError('Invalid token');
  }
}

/** Lifetime of a user token issued to a tool server ({@link issueUserToken}). */
export const ISSUED_USER_TOKEN_TTL = '30d';

/**
 * Issues an HS256 user token (the kind {@link authenticate} accepts) for user `userId` in
 * `organizationIds`, valid {@link ISSUED_USER_TOKEN_TTL}: what a signed-in person hands the tool
 * server's login helper (src/dashboard/cli-login.ts).
 */
export function issueUserToken(jwtSecret: string, userId: string, organizationIds: string[]): Promise<string> {
  return new SignJWT({ org_ids: organizationIds })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(ISSUED_USER_TOKEN_TTL)
    .sign(new TextEncoder().encode(jwtSecret));
}

/**
 * Picks the organization a request acts for: `X-Organization-Id` when given (it must be one of
 * the principal's, else 403), otherwise the key's organization or the user's first. A person's
 * key gives the scope the person's role.
 */
export function resolveScope(principal: Principal, orgHeader: string | undefined): Scope {
  const role = principal.role ? { role: principal.role } : {};
  if (orgHeader !== undefined && orgHeader !== '') {
    if (!principal.organizationIds.includes(orgHeader)) throw new ForbiddenError('Organization not accessible with these credentials');
    return { organizationId: orgHeader, principal, ...role };
  }
  return { organizationId: principal.organizationIds[0], principal, ...role };
}

/** The stable id of who acted, for `created_by` columns: `api_key:<id>` or `user:<sub>`. */
export function actorId(scope: Scope): string {
  return `${scope.principal.kind}:${scope.principal.id}`;
}

/**
 * Creates an organization with one API key. With `apiKey` given (BOOTSTRAP_API_KEY) that key is
 * registered instead of a random one; calling again with the same key is a no-op that returns
 * the existing organization.
 * @returns the organization id and the plaintext key (shown once; only its hash is stored)
 */
export async function createOrganizationWithKey(
  knex: Knex,
  name: string,
  apiKey?: string | null,
): Promise<{ organizationId: string; apiKey: string; created: boolean }> {
  const key = apiKey ?? newApiKey();
  if (!key.startsWith('ck_')) throw new Error('API keys start with ck_');
  return knex.transaction(async (trx) => {
    const existing = await ApiKey.query(trx)
      .select('organization_id')
      .where({ key_hash: sha256Hex(key) })
      .first();
    if (existing) return { organizationId: existing.organization_id, apiKey: key, created: false };
    const organizationId = newId();
    await Organization.query(trx).insert({ id: organizationId, name, webhook_secret: newWebhookSecret() });
    await ApiKey.query(trx).insert({
      id: newId(),
      organization_id: organizationId,
      name: `${name} key`,
      key_hash: sha256Hex(key),
      key_prefix: key.slice(0, 10),
    });
    return { organizationId, apiKey: key, created: true };
  });
}
