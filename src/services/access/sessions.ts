import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { decodeJwt } from 'jose';
import { newId, sha256Hex } from '../../lib/ids';
import { ApiKey } from '../../models/api-key';
import { DashboardSession } from '../../models/dashboard-session';
import { Person } from '../../models/person';
import { authenticate, resolveScope } from './auth';
import type { Scope } from './scope';

/**
 * Review dashboard sessions (paste an API key or user token once;
 * an httpOnly session cookie scoped to that organization; CSRF protection on state changes).
 * Sessions are rows (migrations/20261124093000_dashboard_sessions.ts), never process state.
 */

/** How long a dashboard session lasts after sign-in, in milliseconds (12 hours). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** A new session: the cookie value (shown once; only its hash is stored) and its CSRF token. */
export interface NewSession {
  token: string;
  csrfToken: string;
  organizationId: string;
  expiresAt: Date;
}

/** A live session resolved from its cookie: the request scope and the CSRF token to compare. */
export interface ActiveSession {
  scope: Scope;
  csrfToken: string;
  /** The person signed in; absent for API-key and user-token sessions. */
  person?: { name: string; email: string };
}

/**
 * Signs in: verifies `credential` like a bearer token ({@link authenticate}; docs/api-reference.md "Authentication"),
 * picks the organization (`organizationId`, else the credential's first, {@link resolveScope})
 * and stores a session scoped to it. A user token's `exp` bounds the session's lifetime.
 * @throws UnauthorizedError (401) for an unknown, revoked or invalid credential;
 *   ForbiddenError (403) when `organizationId` is not one of the credential's
 */
export async function signIn(knex: Knex, credential: string, jwtSecret: string | null, organizationId?: string, now = new Date()): Promise<NewSession> {
  const principal = await authenticate(knex, credential.trim(), jwtSecret);
  const scope = resolveScope(principal, organizationId);
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  // A user token's own expiry (`exp`, seconds) still bounds the session: signing in never extends it.
  const exp = principal.kind === 'user' ? decodeJwt(credential.trim()).exp : undefined;
  const expiresAt = new Date(Math.min(now.getTime() + SESSION_TTL_MS, exp !== undefined ? exp * 1000 : Infinity));
  await DashboardSession.query(knex).insert({
    id: newId(),
    token_hash: sha256Hex(token),
    organization_id: scope.organizationId,
    principal_kind: principal.kind,
    principal_id: principal.id,
    // A key's session ends when the key is revoked; a person's key opens a session of the person,
    // with the person's role, never an admin one.
    api_key_id: principal.keyId ?? null,
    person_id: principal.kind === 'person' ? principal.id : null,
    csrf_token: csrfToken,
    expires_at: expiresAt,
  });
  return { token, csrfToken, organizationId: scope.organizationId, expiresAt };
}

/**
 * Signs a person in (they proved who they are by password or OpenID Connect): a
 * session scoped to the person's organization, acting with the person's role.
 */
export async function signInPerson(knex: Knex, person: Person, now = new Date()): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await DashboardSession.query(knex).insert({
    id: newId(),
    token_hash: sha256Hex(token),
    organization_id: person.organization_id,
    principal_kind: 'person',
    principal_id: person.id,
    api_key_id: null,
    person_id: person.id,
    csrf_token: csrfToken,
    expires_at: expiresAt,
  });
  return { token, csrfToken, organizationId: person.organization_id, expiresAt };
}

/**
 * The live session of a cookie value: null when unknown, expired, signed in with an API key
 * revoked since (so revocation ends dashboard access at once), or for a person disabled since.
 * A person's session acts with the person's current role (a role change applies at once).
 */
export async function findSession(knex: Knex, token: string, now = new Date()): Promise<ActiveSession | null> {
  const row = await DashboardSession.query(knex)
    .where({ token_hash: sha256Hex(token) })
    .where('expires_at', '>', now)
    .first();
  if (!row) return null;
  if (row.api_key_id) {
    const key = await ApiKey.query(knex).select('id').findById(row.api_key_id).whereNull('revoked_at');
    if (!key) return null;
  }
  const principal = { kind: row.principal_kind, id: row.principal_id, organizationIds: [row.organization_id] };
  if (row.person_id) {
    const person = await Person.query(knex).select('role', 'name', 'email').findById(row.person_id).where({ disabled: false });
    if (!person) return null;
    return {
      scope: { organizationId: row.organization_id, principal, role: person.role },
      csrfToken: row.csrf_token,
      person: { name: person.name, email: person.email },
    };
  }
  return { scope: { organizationId: row.organization_id, principal }, csrfToken: row.csrf_token };
}

/** Signs out: deletes the session of a cookie value (and any expired sessions, set-based). */
export async function signOut(knex: Knex, token: string, now = new Date()): Promise<void> {
  await DashboardSession.query(knex)
    .where({ token_hash: sha256Hex(token) })
    .delete();
  await knex('dashboard_sessions').where('expires_at', '<=', now).delete();
}
