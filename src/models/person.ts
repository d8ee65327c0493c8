import { BaseModel } from './base';

/** A person's role in their organization, weakest first. */
export type Role = 'viewer' | 'editor' | 'reviewer' | 'admin';

/**
 * A person who signs in to the console as themselves (migrations/20261129090000_people.ts):
 * by email + password (`password_hash`, scrypt) and/or OpenID Connect (`oidc_issuer` + `oidc_subject`).
 */
export class Person extends BaseModel {
  static tableName = 'people';
  id!: string;
  organization_id!: string;
  /** Lower-cased; unique per organization. */
  email!: string;
  name!: string;
  /** `scrypt$N$r$p$salt$hash` (base64url parts), or null when the person has no password. */
  password_hash!: string | null;
  oidc_issuer!: string | null;
  oidc_subject!: string | null;
  role!: Role;
  disabled!: boolean;
  created_at!: Date;
}
