import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../deps';
import { presentApiKey } from '../presenters/api-keys';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/access/api-keys';
import { defineRoute, RouteDef } from './registry';
import { assertRole } from '../services/access/roles';

const ApiKeyResponse = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: 'The first 10 characters of the key, to recognise it' }),
  person_id: Type.Union([Type.String(), Type.Null()], {
    description: "The person the key acts for, with the person's role (a tool server's key); null: the organization's key, which acts as admin",
  }),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/**
 * API keys of the caller's organization: list (prefixes only), create (the key is in
 * the answer once), revoke (refused from the next request on).
 */
export function apiKeyRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['organization'];
  return [
    defineRoute({
      method: 'get',
      path: '/public/api-keys',
      tags,
      summary: "The organization's API keys (prefixes only; revoked keys included)",
      response: Type.Object({ api_keys: Type.Array(ApiKeyResponse) }),
      handler: async ({ scope }) => ({ api_keys: (await listApiKeys(deps.knex, scope)).map(presentApiKey) }),
    }),
    defineRoute({
      method: 'post',
      path: '/public/api-keys',
      tags,
      summary: 'Create an API key of the organization (the key is shown in this answer only)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
      response: Type.Intersect([ApiKeyResponse, Type.Object({ api_key: Type.String({ description: '`ck_…`: store it now, it is never shown again' }) })]),
      atomic: true,
      handler: async ({ scope, body, db }) => {
        assertRole(scope, 'admin');
        const { key, apiKey } = await createApiKey(db, scope.organizationId, body.name);
        return { ...presentApiKey(key), api_key: apiKey };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/public/api-keys/:key_id',
      tags,
      summary: 'Revoke an API key (requests with it are refused from now on)',
      params: Type.Object({ key_id: Type.String() }),
      response: ApiKeyResponse,
      handler: async ({ scope, params }) => presentApiKey(assertRole(scope, 'admin') ?? (await revokeApiKey(deps.knex, scope, params.key_id))),
    }),
  ];
}
