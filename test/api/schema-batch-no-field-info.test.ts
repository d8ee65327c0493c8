import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { closeTestKnex, createTestOrg } from '../helpers/db';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { createTestCatalog } from '../helpers/catalogs';

/**
 * The field batch (docs/api-reference.md "Batch field changes", `PUT …/schema/fields/batch`) on a schema version stored with properties
 * but no `fields_workflow_info` (as test/browser/fixture.ts and SQL writers store it):
 * it answered 500 (the new version's info had holes); the info is now derived from the
 * properties, as the schema page shows it. Called through the typed client (packages/client).
 */

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  org = await createTestOrg('schema batch without field info');
  server = await listenTestApp();
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** `PUT …/schema/fields/batch` of the catalog with `body`. */
const batch = (
  id: string,
  body: NonNullable<paths['/api/public/catalogs/{catalog_id}/schema/fields/batch']['put']['requestBody']>['content']['application/json'],
) => api.PUT('/api/public/catalogs/{catalog_id}/schema/fields/batch', { params: { path: { catalog_id: id } }, body });
/** The catalog's current schema version, with its definition typed as these tests read it. */
const schemaOf = async (id: string) => {
  const s = (await api.GET('/api/public/catalogs/{catalog_id}/schema', { params: { path: { catalog_id: id } } })).data!;
  return { ...s, schema_definition: s.schema_definition as { properties: Record<string, unknown>; required?: string[] } };
};

describe('PUT …/schema/fields/batch on a schema without field info', () => {
  it('adds, updates and removes fields, deriving the info of the existing properties', async () => {
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: {
        type: 'object',
        properties: { sku: { type: 'string' }, title: { type: 'string', description: 'Product title' }, price: { type: 'number' }, color: { type: 'string' } },
        required: ['sku'],
      },
    });
    const res = await batch(catalogId, {
      fields_to_add: [{ field_name: 'material', field_type: 'string', description: 'Main material' }],
      fields_to_update: [{ field_name: 'title', description: 'Title shown to shoppers', required: true }],
      fields_to_remove: ['color'],
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      success: true,
      catalog_id: catalogId,
      previous_schema_version: '1.0.0',
      new_schema_version: '2.0.0',
      fields_added: ['material'],
    });

    const schema = await schemaOf(catalogId);
    // jsonb keeps no key order, so the stored properties' order is PostgreSQL's; added fields go last.
    expect(Object.keys(schema.schema_definition.properties).sort()).toEqual(['material', 'price', 'sku', 'title']);
    expect(Object.keys(schema.schema_definition.properties).at(-1)).toBe('material');
    expect([...(schema.schema_definition.required as string[])].sort()).toEqual(['sku', 'title']);
    const info = schema.fields_workflow_info as Array<Record<string, unknown>>;
    expect(info.map((f) => f.field_name)).toEqual(Object.keys(schema.schema_definition.properties));
    expect(info.find((f) => f.field_name === 'price')).toMatchObject({ field_type: 'number', required: false, added_in_version: '1.0.0' });
    expect(info.find((f) => f.field_name === 'title')).toMatchObject({
      description: 'Title shown to shoppers',
      required: true,
      last_edited_in_version: '2.0.0',
    });
    expect(info.find((f) => f.field_name === 'material')).toMatchObject({ field_type: 'string', added_in_version: '2.0.0' });
    expect(schema.total_fields).toBe(4);
  });

  it('adds a field alone (the old 500: the new version held no info for the other fields)', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const res = await batch(catalogId, { fields_to_add: [{ field_name: 'brand', field_type: 'string' }] });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ new_schema_version: '1.1.0', fields_added: ['brand'] });
    const schema = await schemaOf(catalogId);
    expect((schema.fields_workflow_info as Array<Record<string, unknown>>).map((f) => f.field_name).sort()).toEqual(['brand', 'price', 'sku', 'title']);
  });

  it('still answers 422 for a field the properties do not have', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const res = await batch(catalogId, { fields_to_update: [{ field_name: 'nope', description: 'x' }] });
    expect(res.response.status).toBe(422);
    expect(JSON.stringify(res.error?.detail)).toContain("Field 'nope' does not exist");
  });
});
