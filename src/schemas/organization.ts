import { Type } from '@sinclair/typebox';
import { Nullable } from './common';

/** Schemas of the organization settings routes (src/routes/organization.ts). */

/** The webhook secret answer (documentation of the response). */
export const WebhookSecretResponse = Type.Object({
  organization_id: Type.String(),
  webhook_secret: Type.String({ description: 'Standard-Webhooks secret (`whsec_…`) that signs this organization’s webhooks' }),
});

/** `PUT /public/organization/default-master-catalog` body. */
export const DefaultMasterCatalogBody = Type.Object(
  {
    catalog_id: Nullable(
      Type.String({
        format: 'uuid',
        description:
          'A catalog of the organization: catalogs created with use_master_catalog_defaults and no master_catalog_id inherit its defaults; null clears it',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The default master catalog setting (documentation of the response). */
export const DefaultMasterCatalogResponse = Type.Object({
  organization_id: Type.String(),
  default_master_catalog_id: Nullable(Type.String()),
});
