/**
 * The organization's webhook signing secret ("today deliveries are signed with a
 * secret no client can obtain"; docs/api-enrichment.md "Webhooks": Standard-Webhooks signatures with the
 * organization's webhook secret, src/services/enrichment/webhooks.ts). Readable by any principal
 * of the organization, and rotatable: a rotation replaces the secret at once, and every delivery
 * attempt signed after it uses the new one (deliveries read the secret when they are built).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { Organization } from '../../models/organization';
import type { Scope } from './scope';

/** The secret as clients see it. */
export interface WebhookSecret {
  organization_id: string;
  /** `whsec_` + base64 of 32 random bytes (the Standard-Webhooks form; its HMAC key is the decoded bytes). */
  webhook_secret: string;
}

/** A fresh Standard-Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/**
 * The scope's organization's current webhook secret.
 * @throws Error when the organization row is missing (cannot happen for an authenticated scope)
 */
export async function getWebhookSecret(knex: Knex, scope: Scope): Promise<WebhookSecret> {
  const org = await Organization.query(knex).findById(scope.organizationId).throwIfNotFound();
  return { organization_id: org.id, webhook_secret: org.webhook_secret };
}

/**
 * Replaces the organization's webhook secret with a new random one and returns it. The old
 * secret stops being used at once.
 */
export async function rotateWebhookSecret(knex: Knex, scope: Scope): Promise<WebhookSecret> {
  const secret = newWebhookSecret();
  await Organization.query(knex).findById(scope.organizationId).patch({ webhook_secret: secret }).throwIfNotFound();
  return { organization_id: scope.organizationId, webhook_secret: secret };
}
