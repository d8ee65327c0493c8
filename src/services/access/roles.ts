import type { Knex } from 'knex';
import { ForbiddenError } from '../../lib/errors';
import { Person, type Role } from '../../models/person';
import type { Principal, Scope } from './scope';

/**
 * Roles per organization, weakest first: a viewer reads; an editor also stages
 * changes (an item edit is staged); a reviewer also approves, rejects, applies, restores and writes the
 * catalog directly; an admin also manages keys, people and settings. The role each route needs is
 * in ./route-roles.ts. API keys and user tokens carry no role and act as admin, so
 * programs keep working as before people existed.
 */
export const ROLES: readonly Role[] = ['viewer', 'editor', 'reviewer', 'admin'];

/** What each role may do beyond the one below it, for error details and the docs. */
const CAN: Record<Role, string> = {
  viewer: 'read',
  editor: 'stage changes (item edits included)',
  reviewer: 'approve, reject, apply, restore and write the catalog directly',
  admin: 'manage API keys, people and settings, and delete catalogs',
};

/** Whether `value` is a role name. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The role a scope acts with: the person's, or `admin` for API keys and user tokens. */
export function scopeRole(scope: Scope): Role {
  return scope.role ?? 'admin';
}

/** Whether the scope's role is `needed` or stronger. */
export function hasRole(scope: Scope, needed: Role): boolean {
  return ROLES.indexOf(scopeRole(scope)) >= ROLES.indexOf(needed);
}

/**
 * Refuses a scope whose role is weaker than `needed`.
 * @throws ForbiddenError (403) naming the role held and the role needed
 */
export function assertRole(scope: Scope, needed: Role): void {
  if (!hasRole(scope, needed)) {
    const article = needed === 'viewer' ? 'a' : needed === 'reviewer' ? 'a' : 'an';
    throw new ForbiddenError(`Your role is ${scopeRole(scope)}: only ${article} ${needed} or above may ${CAN[needed]}`);
  }
}

/**
 * The scope a durable job started by `actor` acts with now, as it runs (an import's batches,
 * every write acts with the person's role): a person acts with their current role,
 * and must still reach `needed` (the role of the route that started the job); an API key or user
 * token acts as admin, as it did when it started the job.
 * @throws ForbiddenError (403) when the person is disabled, gone, or their role is now below `needed`
 */
export async function actorScope(knex: Knex, organizationId: string, actor: Pick<Principal, 'kind' | 'id'>, needed: Role): Promise<Scope> {
  const scope: Scope = { organizationId, principal: { kind: actor.kind, id: actor.id, organizationIds: [organizationId] } };
  if (actor.kind !== 'person') return scope;
  const person = await Person.query(knex).select('role').findById(actor.id).where({ organization_id: organizationId, disabled: false });
  if (!person) throw new ForbiddenError('The person who started this is disabled or no longer in the organization');
  scope.role = person.role;
  assertRole(scope, needed);
  return scope;
}
