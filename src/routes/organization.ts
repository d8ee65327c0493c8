import type { AppDeps } from '../deps';
import { DefaultMasterCatalogBody, DefaultMasterCatalogResponse, WebhookSecretResponse } from '../schemas/organization';
import { getWebhookSecret, rotateWebhookSecret } from '../services/access/webhook-secret';
import { getDefaultMasterCatalog, setDefaultMasterCatalog } from '../services/catalog/default-master-catalog';
import { defineRoute, RouteDef } from './registry';
import { assertRole } from '../services/access/roles';

/**
 * Organization settings. The webhook signing secret (docs/api-enrichment.md "Webhooks"): read it
 * to verify `webhook-signature` headers, rotate it when it leaked; rotation takes effect for every
 * delivery signed afterwards. The default master catalog that
 * `use_master_catalog_defaults` inherits from when a new catalog names no `master_catalog_id`.
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
      handler: async ({ scope }) => (assertRole(scope, 'admin'), getWebhookSecret(deps.knex, scope)),
    }),
    defineRoute({
      method: 'post',
      path: '/public/organization/webhook-secret/rotate',
      tags,
      summary: "Replace the organization's webhook signing secret with a new random one",
      response: WebhookSecretResponse,
      atomic: true,
      handler: async ({ scope, db }) => (assertRole(scope, 'admin'), rotateWebhookSecret(db, scope)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/organization/default-master-catalog',
      tags,
      summary: "The organization's default master catalog (null when none is set)",
      response: DefaultMasterCatalogResponse,
      handler: async ({ scope }) => getDefaultMasterCatalog(deps.knex, scope),
    }),
    defineRoute({
      method: 'put',
      path: '/public/organization/default-master-catalog',
      tags,
      summary: 'Set (or clear with null) the catalog whose defaults new catalogs inherit with use_master_catalog_defaults and no master_catalog_id',
      body: DefaultMasterCatalogBody,
      response: DefaultMasterCatalogResponse,
      handler: async ({ scope, body }) => (assertRole(scope, 'admin'), setDefaultMasterCatalog(deps.knex, scope, body.catalog_id)),
    }),
  ];
}
