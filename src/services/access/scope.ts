import type { Knex } from 'knex';

/** Who is calling: an API key (one organization) or a user token (its organizations). */
export interface Principal {
  kind: 'api_key' | 'user';
  /** API key id, or the user id (`sub`) of the token. */
  id: string;
  organizationIds: string[];
}

/**
 * The scope every service function takes first (architecture.md, services): the organization
 * the request acts for, the principal, and optionally a transaction to run in.
 */
export interface Scope {
  organizationId: string;
  principal: Principal;
  trx?: Knex.Transaction;
}
