import { BaseModel } from './base';

/**
 * A signed-in review dashboard session: the cookie holds a random token, this row its
 * SHA-256, scoped to one organization (migrations/20261124093000_dashboard_sessions.ts).
 */
export class DashboardSession extends BaseModel {
  static tableName = 'dashboard_sessions';
  id!: string;
  token_hash!: string;
  organization_id!: string;
  principal_kind!: 'api_key' | 'user' | 'person';
  /** API key id, or the user id (`sub`) of the token. */
  principal_id!: string;
  /** The key signed in with (revoking it ends the session); null for user tokens. */
  api_key_id!: string | null;
  /** The person signed in; null for API-key and user-token sessions. */
  person_id!: string | null;
  csrf_token!: string;
  expires_at!: Date;
  created_at!: Date;
}
