import { ForbiddenError } from '../../lib/errors';
import type { Role } from '../../models/person';
import type { Scope } from './scope';

/**
 * Roles per organization (issue 28 §12), weakest first: a viewer reads; an editor also stages
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
