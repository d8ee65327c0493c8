import type { Role } from '../../models/person';

/**
 * Who is calling: an API key (one organization), a user token (its organizations), or a person
 * signed in to the console (one organization).
 */
export interface Principal {
  kind: 'api_key' | 'user' | 'person';
  /** API key id, the user id (`sub`) of the token, or the person id. */
  id: string;
  organizationIds: string[];
  /**
   * The person's role when a person's key is used (the key acts as the person); it
   * becomes the scope's `role` ({@link Scope}). Absent for the other principals.
   */
  role?: Role;
  /** The API key the request came with (organization or person key), for sessions opened with it. */
  keyId?: string;
}

/**
 * The scope every service function takes (docs/architecture.md "The rules"): the organization the
 * request acts for and the principal. A transaction is never part of it: the use case that
 * opens one passes it down as an explicit `trx` argument (docs/architecture.md "The rules").
 */
export interface Scope {
  organizationId: string;
  principal: Principal;
  /**
   * The person's role in the organization; absent for API keys and user tokens,
   * which act as admin (src/services/access/roles.ts).
   */
  role?: Role;
}
