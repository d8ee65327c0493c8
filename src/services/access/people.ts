import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { Person, type Role } from '../../models/person';
import { hashPassword, MIN_PASSWORD_LENGTH, randomPassword, verifyPassword } from './passwords';
import { assertRole, isRole } from './roles';
import type { Scope } from './scope';

/**
 * People of an organization: created by an admin on the
 * organization page or by the `ops` CLI, signed in by email + password or OpenID Connect
 * (src/services/access/oidc.ts), each with one role.
 */

/** A person as the console lists them (never the password hash). */
export interface PersonSummary {
  id: string;
  email: string;
  name: string;
  role: Role;
  has_password: boolean;
  oidc: boolean;
  disabled: boolean;
  created_at: Date;
}

/** What {@link createPerson} takes. `password` optional (an OIDC-only person has none). */
export interface NewPerson {
  email: string;
  name?: string;
  role: string;
  password?: string | null;
}

/** Lower-cased, trimmed email; rejects anything without one `@` between two non-empty parts. */
function normalEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(e) || e.length > 320) throw ValidationError.at(['body', 'email'], 'A valid email address is required');
  return e;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw ValidationError.at(['body', 'password'], `A password has at least ${MIN_PASSWORD_LENGTH} characters`);
}

function summary(p: Person): PersonSummary {
  return {
    id: p.id,
    email: p.email,
    name: p.name,
    role: p.role,
    has_password: p.password_hash !== null,
    oidc: p.oidc_subject !== null,
    disabled: p.disabled,
    created_at: p.created_at,
  };
}

/**
 * Adds a person to an organization (no role check: the callers check, {@link invitePerson} and the `ops` CLI).
 * @throws ValidationError (422) bad email, role or short password; ConflictError (409) when the email is taken in the organization
 */
export async function createPerson(knex: Knex, organizationId: string, input: NewPerson): Promise<PersonSummary> {
  const email = normalEmail(input.email);
  if (!isRole(input.role)) throw ValidationError.at(['body', 'role'], 'role is one of viewer, editor, reviewer, admin');
  if (input.password) checkPassword(input.password);
  const taken = await Person.query(knex).where({ organization_id: organizationId, email }).first();
  if (taken) throw new ConflictError(`${email} is already a person of this organization`);
  const row = await Person.query(knex).insertAndFetch({
    id: newId(),
    organization_id: organizationId,
    email,
    name: (input.name ?? '').trim().slice(0, 200),
    password_hash: input.password ? await hashPassword(input.password) : null,
    role: input.role,
  });
  return summary(row);
}

/** An admin adds a person to the scope's organization. @throws ForbiddenError (403) for a non-admin; as {@link createPerson} */
export function invitePerson(knex: Knex, scope: Scope, input: NewPerson): Promise<PersonSummary> {
  assertRole(scope, 'admin');
  return createPerson(knex, scope.organizationId, input);
}

/** The organization's people, by email. */
export async function listPeople(knex: Knex, scope: Scope): Promise<PersonSummary[]> {
  const rows = await Person.query(knex).where({ organization_id: scope.organizationId }).orderBy('email');
  return rows.map(summary);
}

/**
 * An admin sets a person's role (and disabled flag). An admin cannot demote or disable themselves
 * (the organization would risk losing its last admin by accident).
 * @throws ForbiddenError (403) non-admin or self-change; NotFoundError (404); ValidationError (422) bad role
 */
export async function updatePerson(knex: Knex, scope: Scope, personId: string, change: { role: string; disabled: boolean }): Promise<PersonSummary> {
  assertRole(scope, 'admin');
  if (!isRole(change.role)) throw ValidationError.at(['body', 'role'], 'role is one of viewer, editor, reviewer, admin');
  const person = await Person.query(knex).findById(personId).where({ organization_id: scope.organizationId });
  if (!person) throw new NotFoundError('Person not found');
  if (scope.principal.kind === 'person' && scope.principal.id === personId && (change.role !== 'admin' || change.disabled)) {
    throw new ForbiddenError('You cannot lower your own role or disable yourself; ask another admin');
  }
  return summary(await Person.query(knex).patchAndFetchById(personId, { role: change.role, disabled: change.disabled }));
}

/**
 * Sets a new password of the person with `email` in the organization (the `ops` CLI's reset);
 * with no `password` a random one is made. Ends the person's open sessions.
 * @returns the person and the new password (print it once)
 * @throws NotFoundError (404) no such person; ValidationError (422) short password
 */
export async function resetPassword(
  knex: Knex,
  organizationId: string,
  email: string,
  password?: string,
): Promise<{ person: PersonSummary; password: string }> {
  const pw = password ?? randomPassword();
  checkPassword(pw);
  const person = await Person.query(knex)
    .where({ organization_id: organizationId, email: normalEmail(email) })
    .first();
  if (!person) throw new NotFoundError(`No person ${email} in organization ${organizationId}`);
  const row = await Person.query(knex).patchAndFetchById(person.id, { password_hash: await hashPassword(pw) });
  await knex('dashboard_sessions').where({ person_id: person.id }).delete();
  return { person: summary(row), password: pw };
}

/**
 * The person a sign-in by email + password is for: the enabled person with that email (in
 * `organizationId` when given; else the only one whose password matches) and a matching password.
 * Unknown email and wrong password take about the same time (a hash is always computed).
 * @returns the person, or null when no enabled person has that email and password
 */
export async function personByPassword(knex: Knex, email: string, password: string, organizationId?: string): Promise<Person | null> {
  const q = Person.query(knex).where({ email: email.trim().toLowerCase(), disabled: false }).whereNotNull('password_hash');
  if (organizationId) q.where({ organization_id: organizationId });
  const candidates = await q.orderBy('created_at').limit(10);
  // Without candidates, spend the same work on a dummy hash so timing does not reveal the email.
  if (candidates.length === 0) await verifyPassword(password, DUMMY_HASH);
  for (const person of candidates) {
    if (await verifyPassword(password, person.password_hash as string)) return person;
  }
  return null;
}

/** A fixed hash of nothing anyone types (same cost as real ones), for {@link personByPassword}. */
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** Display names of actors (`person:<id>`, `api_key:<id>`, `user:<sub>`) for review pages: the person's name or email, `API key ck_…`, `user <sub>`. */
export async function actorNames(knex: Knex, organizationId: string, actors: Array<string | null | undefined>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const wanted = [...new Set(actors.filter((a): a is string => !!a))];
  const personIds = wanted.filter((a) => a.startsWith('person:')).map((a) => a.slice(7));
  const keyIds = wanted.filter((a) => a.startsWith('api_key:')).map((a) => a.slice(8));
  const uuid = /^[0-9a-f-]{36}$/i;
  if (personIds.length) {
    const rows = await Person.query(knex)
      .select('id', 'name', 'email')
      .where({ organization_id: organizationId })
      .whereIn(
        'id',
        personIds.filter((id) => uuid.test(id)),
      );
    for (const p of rows) names.set(`person:${p.id}`, p.name ? `${p.name} <${p.email}>` : p.email);
  }
  if (keyIds.length) {
    const rows = await knex('api_keys')
      .select('id', 'key_prefix')
      .where({ organization_id: organizationId })
      .whereIn(
        'id',
        keyIds.filter((id) => uuid.test(id)),
      );
    for (const k of rows as Array<{ id: string; key_prefix: string }>) names.set(`api_key:${k.id}`, `API key ${k.key_prefix}…`);
  }
  for (const a of wanted) if (!names.has(a)) names.set(a, a.startsWith('user:') ? `user ${a.slice(5)}` : a);
  return names;
}
