import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../deps';
import { getWebhookSecret, rotateWebhookSecret } from '../services/access/webhook-secret';
import { defineRoute, RouteDef } from './registry';

/** The webhook secret answer (documentation of the response). */
const WebhookSecretResponse = Type.Object({
  organization_id: Type.String(),
  webhook_secret: Type.String({ description: 'Standard-Webhooks secret (`whsec_…`) that signs this organization’s webhooks' }),
});

/**
 * The organization's webhook signing secret (issue 17; decisions.md §4 webhooks): read it to
 * verify `webhook-signature` headers, rotate it when it leaked. Rotation takes effect for every
 * delivery signed afterwards.
 */
export function organizationRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['organization'];
  return [
    defineRoute({
      method: 'get',
      path: '/public/organization/webhook-secret',
      tags,
      summary: "The organization's webhook signing secret",
      response: WebhookSecretResponse,
      handler: async ({ scope }) => getWebhookSecret(deps.knex, scope),
    }),
    defineRoute({
      method: 'post',
      path: '/public/organization/webhook-secret/rotate',
      tags,
      summary: "Replace the organization's webhook signing secret with a new random one",
      response: WebhookSecretResponse,
      handler: async ({ scope }) => rotateWebhookSecret(deps.knex, scope),
    }),
  ];
}
