import request from 'supertest';
import type { Server } from 'node:http';
import { closeTestKnex, createTestOrg } from '../helpers/db';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { bodyOf, SchemaBody } from '../helpers/wire';

/**
 * The field batch (G2, `PUT …/schema/fields/batch`) on a schema version stored with properties
 * but no `fields_workflow_info` (as test/browser/fixture.ts and SQL writers store it; issue 28):
 * it answered 500 (the new version's info had holes); the info is now derived from the
 * properties, as the schema page shows it.
 */

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  org = await createTestOrg('schema batch without field info');
  server = testApp().listen(0);
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

const batch = (id: string) => `/api/public/catalogs/${id}/schema/fields/batch`;

describe('PUT …/schema/fields/batch on a schema without field info', () => {
  it('adds, updates and removes fields, deriving the info of the existing properties', async () => {
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: {
        type: 'object',
        properties: { sku: { type: 'string' }, title: { type: 'string', description: 'Product title' }, price: { type: 'number' }, color: { type: 'string' } },
        required: ['sku'],
      },
    });
    const res = await request(server)
      .put(batch(catalogId))
      .set(org.auth)
      .send({
        fields_to_add: [{ field_name: 'material', field_type: 'string', description: 'Main material' }],
        fields_to_update: [{ field_name: 'title', description: 'Title shown to shoppers', required: true }],
        fields_to_remove: ['color'],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      catalog_id: catalogId,
      previous_schema_version: '1.0.0',
      new_schema_version: '2.0.0',
      fields_added: ['material'],
    });

    const schema = bodyOf<SchemaBody>(await request(server).get(`/api/public/catalogs/${catalogId}/schema`).set(org.auth));
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
    const res = await request(server)
      .put(batch(catalogId))
      .set(org.auth)
      .send({ fields_to_add: [{ field_name: 'brand', field_type: 'string' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ new_schema_version: '1.1.0', fields_added: ['brand'] });
    const schema = bodyOf<SchemaBody>(await request(server).get(`/api/public/catalogs/${catalogId}/schema`).set(org.auth));
    expect((schema.fields_workflow_info as Array<Record<string, unknown>>).map((f) => f.field_name).sort()).toEqual(['brand', 'price', 'sku', 'title']);
  });

  it('still answers 422 for a field the properties do not have', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const res = await request(server)
      .put(batch(catalogId))
      .set(org.auth)
      .send({ fields_to_update: [{ field_name: 'nope', description: 'x' }] });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain("Field 'nope' does not exist");
  });
});
