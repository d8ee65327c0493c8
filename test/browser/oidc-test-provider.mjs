/**
 * A local OpenID Connect provider for the people tests: `oidc-provider` (a
 * certified implementation) on 127.0.0.1, with its development login and consent pages (any login
 * name and password sign in as that name). Run as its own process (the package is an ES module):
 *
 *   node test/browser/oidc-test-provider.mjs <redirect_uri> <client_id> <client_secret>
 *
 * Prints one JSON line `{"issuer": "http://127.0.0.1:<port>"}` once it listens. The account with
 * login `x` has the claims sub `x`, email `x@example.org` (verified) and name `Person x`.
 */
import http from 'node:http';
import Provider from 'oidc-provider';

const [redirectUri, clientId, clientSecret] = process.argv.slice(2);
if (!redirectUri || !clientId || !clientSecret) {
  process.stderr.write('usage: oidc-test-provider.mjs <redirect_uri> <client_id> <client_secret>\n');
  process.exit(2);
}

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The scope's claims go into the ID token too (the relying party reads no userinfo).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['people-test-provider-cookie-key'] },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@example.org`, email_verified: true, name: `Person ${sub}` }),
    }),
  });
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
