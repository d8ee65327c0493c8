/** Who is calling: an API key (one organization) or a user token (its organizations). */
export interface Principal {
  kind: 'api_key' | 'user';
  /** API key id, or the user id (`sub`) of the token. */
  id: string;
  organizationIds: string[];
}

/**
 * The scope every service function takes (architecture.md, services): the organization the
 * request acts for and the principal. A transaction is never part of it: the use case that
 * opens one passes it down as an explicit `trx` argument (architecture.md, rules).
 */
export interface Scope {
  organizationId: string;
  principal: Principal;
}
