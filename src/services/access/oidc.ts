import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { Person, type Role } from '../../models/person';
import type { Config } from '../../config';

/**
 * OpenID Connect sign-in of people: the console is a confidential relying party
 * of one provider (Config.oidc) using the authorization code flow with PKCE (S256), `state`
 * against login CSRF and `nonce` against ID token replay. The ID token is verified with `jose`
 * (signature by the provider's JWKS, `iss`, `aud`, `exp`, `nonce`). One {@link OidcClient} per
 * router; it keeps the discovered metadata and key set for its own lifetime.
 */

/** The provider metadata the flow uses (from `/.well-known/openid-configuration`). */
interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** What the browser keeps between the redirect to the provider and the callback (in an httpOnly cookie). */
export interface PendingLogin {
  state: string;
  nonce: string;
  code_verifier: string;
  next: string;
}

/** Who the provider vouched for: the ID token's claims the console uses. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  name: string;
}

/** How long the provider's answers may take, in milliseconds. */
const TIMEOUT_MS = 10_000;

/** The relying party of one configured provider. */
export class OidcClient {
  private metadata: Promise<ProviderMetadata> | null = null;
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null;

  constructor(
    private readonly settings: NonNullable<Config['oidc']>,
    private readonly redirectUri: string,
  ) {}

  /** The provider's metadata, fetched once (a failed fetch is retried next time). */
  private discover(): Promise<ProviderMetadata> {
    if (!this.metadata) {
      const url = `${this.settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
      this.metadata = fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
        .then(async (res) => {
          if (!res.ok) throw new Error(`OpenID provider discovery answered ${res.status}`);
          const meta = (await res.json()) as ProviderMetadata;
          if (meta.issuer !== this.settings.issuer) throw new Error(`OpenID provider issuer ${meta.issuer} is not OIDC_ISSUER ${this.settings.issuer}`);
          return meta;
        })
        .catch((err) => {
          this.metadata = null;
          throw new UnauthorizedError(`The identity provider could not be reached (${(err as Error).message})`);
        });
    }
    return this.metadata;
  }

  /**
   * Starts a sign-in: new `state`, `nonce` and PKCE verifier.
   * @returns the provider URL to redirect the browser to and what to keep until the callback
   * @throws UnauthorizedError (401) when the provider cannot be discovered
   */
  async start(next: string): Promise<{ url: string; pending: PendingLogin }> {
    const meta = await this.discover();
    const pending: PendingLogin = {
      state: randomBytes(16).toString('base64url'),
      nonce: randomBytes(16).toString('base64url'),
      code_verifier: randomBytes(32).toString('base64url'),
      next,
    };
    const url = new URL(meta.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: createHash('sha256').update(pending.code_verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), pending };
  }

  /**
   * Finishes a sign-in: checks `state`, exchanges the code (client_secret_basic + PKCE verifier)
   * and verifies the ID token.
   * @throws UnauthorizedError (401) for a wrong state, a provider error, or an invalid ID token
   */
  async finish(query: { code?: string; state?: string; error?: string }, pending: PendingLogin): Promise<OidcIdentity> {
    if (query.error) throw new UnauthorizedError(`The identity provider refused the sign-in (${query.error})`);
    if (!query.code || !query.state || query.state !== pending.state) throw new UnauthorizedError('Sign-in expired or was not started here; try again');
    const meta = await this.discover();
    const basic = Buffer.from(`${encodeURIComponent(this.settings.clientId)}:${encodeURIComponent(this.settings.clientSecret)}`).toString('base64');
    const res = await fetch(meta.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}`, accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: query.code, redirect_uri: this.redirectUri, code_verifier: pending.code_verifier }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const tokens = (await res.json().catch(() => ({}))) as { id_token?: string; error?: string };
    if (!res.ok || !tokens.id_token) throw new UnauthorizedError(`The identity provider did not issue an ID token (${tokens.error ?? res.status})`);
    this.jwks ??= createRemoteJWKSet(new URL(meta.jwks_uri));
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(tokens.id_token, this.jwks, { issuer: meta.issuer, audience: this.settings.clientId }));
    } catch (err) {
      throw new UnauthorizedError(`The ID token is not valid (${(err as Error).message})`);
    }
    if (claims.nonce !== pending.nonce) throw new UnauthorizedError('The ID token is not valid (nonce)');
    if (typeof claims.sub !== 'string') throw new UnauthorizedError('The ID token is not valid (sub)');
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null;
    return {
      issuer: meta.issuer,
      subject: claims.sub,
      email,
      email_verified: claims.email_verified !== false,
      name: typeof claims.name === 'string' ? claims.name : '',
    };
  }
}

/**
 * The person an OpenID identity signs in as: the one linked to that issuer + subject; else a
 * person created beforehand with the same (verified) email, not linked yet, who gets linked (in
 * `OIDC_ORGANIZATION_ID` when set); else, when `OIDC_ROLE` and `OIDC_ORGANIZATION_ID` are set, a
 * new person with that role.
 * @throws ForbiddenError (403) when the identity is not a person here (or is disabled)
 */
export async function personForIdentity(knex: Knex, settings: NonNullable<Config['oidc']>, id: OidcIdentity): Promise<Person> {
  const linked = await Person.query(knex).where({ oidc_issuer: id.issuer, oidc_subject: id.subject }).orderBy('created_at').first();
  if (linked) {
    if (linked.disabled) throw new ForbiddenError('Your access to this console is disabled; ask an admin');
    return linked;
  }
  if (id.email && id.email_verified) {
    const q = Person.query(knex).where({ email: id.email }).whereNull('oidc_subject');
    if (settings.organizationId) q.where({ organization_id: settings.organizationId });
    const invited = await q.orderBy('created_at').first();
    if (invited) {
      if (invited.disabled) throw new ForbiddenError('Your access to this console is disabled; ask an admin');
      return Person.query(knex).patchAndFetchById(invited.id, { oidc_issuer: id.issuer, oidc_subject: id.subject, name: invited.name || id.name });
    }
  }
  if (settings.role && settings.organizationId && id.email) {
    return Person.query(knex).insertAndFetch({
      id: newId(),
      organization_id: settings.organizationId,
      email: id.email,
      name: id.name.slice(0, 200),
      password_hash: null,
      oidc_issuer: id.issuer,
      oidc_subject: id.subject,
      role: settings.role as Role,
    });
  }
  throw new ForbiddenError(`${id.email ?? id.subject} is not a person of any organization here; ask an admin to add you`);
}
