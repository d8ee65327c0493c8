import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { evolveSchema, getCurrentSchema } from '../../src/services/catalog/schema/schema';
import { itemValidator } from '../../src/services/catalog/schema/schema-validation';
import type { Scope } from '../../src/services/access/scope';
import type { SchemaBody, ValidationErrorBody } from '../helpers/wire';

/**
 * Schema versions and field edits (docs/api-reference.md "Schema versions" and Versioning; docs/api-reference.md "Batch field changes"): version rules, lineage, ordering, atomicity, and the item-validation / auto-evolve
 * interface used by the item routes. Called through the typed client (packages/client); bodies of
 * the wrong shape and malformed JSON, which its types refuse, through supertest.
 */

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** `POST …/schema/fields` body. */
type FieldInput = paths['/api/public/catalogs/{catalog_id}/schema/fields']['post']['requestBody']['content']['application/json'];
/** `PUT …/schema/fields/batch` body. */
type BatchInput = NonNullable<paths['/api/public/catalogs/{catalog_id}/schema/fields/batch']['put']['requestBody']>['content']['application/json'];

async function newCatalog(): Promise<string> {
  const res = await api.POST('/api/public/catalogs', {
    body: {
      name: 'Schema test',
      unique_id_field: 'sku',
      schema_definition: { type: 'object', properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' } }, required: ['sku'] },
    },
  });
  expect(res.response.status).toBe(200);
  return res.data!.id;
}

const fields = (id: string) => `/api/public/catalogs/${id}/schema/fields`;
const batch = (id: string) => `/api/public/catalogs/${id}/schema/fields/batch`;
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
/** `POST …/schema/fields` with `body`. */
const addField = (id: string, body: FieldInput) => api.POST('/api/public/catalogs/{catalog_id}/schema/fields', { ...cat(id), body });
/** `PUT …/schema/fields/batch` with `body`. */
const putBatch = (id: string, body: BatchInput) => api.PUT('/api/public/catalogs/{catalog_id}/schema/fields/batch', { ...cat(id), body });
/** `GET …/schema` (`version` when given): the answer. */
const schemaAt = (id: string, version?: string) =>
  api.GET('/api/public/catalogs/{catalog_id}/schema', { params: { path: { catalog_id: id }, ...(version ? { query: { version } } : {}) } });
/** The schema version (the current one, or `version`), with its definition typed as the tests read it. */
const getSchema = async (id: string, version?: string): Promise<SchemaBody> => {
  const s = (await schemaAt(id, version)).data!;
  return { ...s, schema_definition: s.schema_definition as SchemaBody['schema_definition'], fields_workflow_info: s.fields_workflow_info! };
};
const versionCount = async (id: string) => Number((await testKnex()('catalog_schemas').where('catalog_id', id).count({ n: '*' }))[0].n);

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('schema org');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

describe('POST …/schema/fields', () => {
  it('adds an optional field as a minor version, at the bottom by default', async () => {
    const id = await newCatalog();
    const res = await addField(id, {
      field_name: 'color',
      field_type: 'string',
      description: 'Main colour',
      sample_values: ['red', 'blue'],
      validation_rules: { enum: ['red', 'blue', 'green'] },
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      success: true,
      catalog_id: id,
      new_schema_version: '1.1.0',
      previous_schema_version: '1.0.0',
      fields_added: ['color'],
      message: expect.any(String),
    });
    const s = await getSchema(id);
    expect(s).toMatchObject({ version: '1.1.0', backward_compatible: true, total_fields: 4, input_fields_count: 4, generated_fields_count: 0 });
    expect(Object.keys(s.schema_definition.properties)).toEqual(['sku', 'title', 'price', 'color']);
    expect(s.schema_definition.properties.color).toEqual({
      type: 'string',
      description: 'Main colour',
      examples: ['red', 'blue'],
      enum: ['red', 'blue', 'green'],
    });
    expect(s.fields_workflow_info[3]).toMatchObject({
      field_name: 'color',
      field_type: 'string',
      sample_values: ['red', 'blue'],
      validation_rules: { enum: ['red', 'blue', 'green'] },
      added_in_version: '1.1.0',
      added_by_workflow: null,
      field_category: 'input',
    });
    const catalog = (await api.GET('/api/public/catalogs/{catalog_id}', cat(id))).data!;
    expect(catalog.current_schema_version).toBe('1.1.0');
  });

  it('respects position top and records workflow lineage and category', async () => {
    const id = await newCatalog();
    const res = await addField(id, {
      field_name: 'summary',
      field_type: 'string',
      position: 'top',
      field_category: 'generated',
      workflow_id: 'wf-1',
      unit: 'chars',
    });
    expect(res.response.status).toBe(200);
    const s = await getSchema(id);
    expect(Object.keys(s.schema_definition.properties)).toEqual(['summary', 'sku', 'title', 'price']);
    expect(s.fields_workflow_info[0]).toMatchObject({
      field_name: 'summary',
      field_category: 'generated',
      added_by_workflow: 'wf-1',
      added_in_version: '1.1.0',
      unit: 'chars',
    });
    expect(s).toMatchObject({ generated_fields_count: 1, input_fields_count: 3, last_edited_by_workflow: 'wf-1' });
  });

  it('ignores field_category without a workflow_id (workflow-tracking metadata only)', async () => {
    const id = await newCatalog();
    expect((await addField(id, { field_name: 'summary', field_type: 'string', field_category: 'generated' })).response.status).toBe(200);
    expect((await getSchema(id)).fields_workflow_info[3].field_category).toBe('input');
  });

  it('adds a required field as a major, non-backward-compatible version', async () => {
    const id = await newCatalog();
    const res = await addField(id, { field_name: 'gtin', field_type: 'string', required: true });
    expect(res.data?.new_schema_version).toBe('2.0.0');
    const s = await getSchema(id);
    expect(s).toMatchObject({ backward_compatible: false, migration_rules: { change_type: 'major', required_fields_added: ['gtin'], fields_added: ['gtin'] } });
    expect(s.schema_definition.required).toEqual(['sku', 'gtin']);
  });

  it.each<[string, FieldInput, Array<string | number>, string]>([
    ['an existing field', { field_name: 'sku', field_type: 'string' }, ['body', 'field_name'], 'value_error.field_exists'],
    ['a reserved name', { field_name: '__id', field_type: 'string' }, ['body', 'field_name'], 'value_error.pattern'],
    [
      'invalid validation rules',
      { field_name: 'x', field_type: 'string', validation_rules: { minLength: 'five' } },
      ['body', 'validation_rules'],
      'value_error.json_schema',
    ],
  ])('rejects %s with 422 and writes no version', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await addField(id, body);
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
  });

  // Bodies the client's types refuse (values outside the enums, a missing or unknown key): through supertest.
  it.each([
    ['a bad type', { field_name: 'x', field_type: 'text' }, ['body', 'field_type'], 'enum'],
    ['a missing type', { field_name: 'x' }, ['body', 'field_type'], 'missing'],
    ['a bad position', { field_name: 'x', field_type: 'string', position: 'middle' }, ['body', 'position'], 'enum'],
    ['an unknown key', { field_name: 'x', field_type: 'string', colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
  ])('rejects %s with 422 and writes no version', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await request(server).post(fields(id)).set(org.auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
  });

  it('rejects malformed JSON with 422 json_invalid', async () => {
    const id = await newCatalog();
    const res = await request(server).post(fields(id)).set(org.auth).set('Content-Type', 'application/json').send('{"field_name":');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_invalid');
    expect(await versionCount(id)).toBe(1);
  });
});

describe('PUT …/schema/fields/batch', () => {
  it('adds, updates and removes in one major version and keeps the old one readable', async () => {
    const id = await newCatalog();
    const res = await putBatch(id, {
      fields_to_add: [
        { field_name: 'brand', field_type: 'string', scope: 'product' },
        { field_name: 'image', field_type: 'string', position: 'top' },
      ],
      fields_to_update: [{ field_name: 'price', field_type: 'integer', description: 'Price in cents' }],
      fields_to_remove: ['title'],
      workflow_id: 'wf-9',
      reason: 'Cleanup',
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      success: true,
      new_schema_version: '2.0.0',
      previous_schema_version: '1.0.0',
      fields_added: ['brand', 'image'],
      fields_updated: ['price'],
      fields_removed: ['title'],
    });
    const s = await getSchema(id);
    expect(s).toMatchObject({ version: '2.0.0', backward_compatible: false, change_reason: 'Cleanup' });
    expect(s.migration_rules).toMatchObject({
      change_type: 'major',
      fields_removed: ['title'],
      type_changes: { price: { from: 'number', to: 'integer' } },
      fields_added: ['brand', 'image'],
    });
    expect(Object.keys(s.schema_definition.properties)).toEqual(['image', 'sku', 'price', 'brand']);
    const price = s.fields_workflow_info.find((f) => f.field_name === 'price');
    expect(price).toMatchObject({
      field_type: 'integer',
      description: 'Price in cents',
      last_edited_by_workflow: 'wf-9',
      last_edited_in_version: '2.0.0',
      added_in_version: '1.0.0',
    });
    expect(s.fields_workflow_info.find((f) => f.field_name === 'brand')).toMatchObject({ scope: 'product', added_by_workflow: 'wf-9' });
    const old = await getSchema(id, '1.0.0');
    expect(Object.keys(old.schema_definition.properties)).toEqual(['sku', 'title', 'price']);
    expect((await schemaAt(id, '7.0.0')).response.status).toBe(404);
    expect((await schemaAt(id, 'latest')).response.status).toBe(422);
  });

  it('applies the version rules: description-only is patch, making optional is minor, making required is major', async () => {
    const id = await newCatalog();
    expect((await putBatch(id, { fields_to_update: [{ field_name: 'title', description: 'Product title' }] })).data?.new_schema_version).toBe('1.0.1');
    expect((await putBatch(id, { fields_to_update: [{ field_name: 'sku', required: false }] })).data?.new_schema_version).toBe('1.1.0');
    const req = await putBatch(id, { fields_to_update: [{ field_name: 'title', required: true }] });
    expect(req.data?.new_schema_version).toBe('2.0.0');
    expect((await getSchema(id)).migration_rules).toMatchObject({ made_required: ['title'] });
    const rules = await putBatch(id, { fields_to_update: [{ field_name: 'price', validation_rules: { minimum: 0 } }] });
    expect(rules.data?.new_schema_version).toBe('3.0.0');
    expect((await getSchema(id)).schema_definition.properties.price).toEqual({ type: 'number', minimum: 0 });
    expect(await versionCount(id)).toBe(5);
    for (const v of ['1.0.0', '1.0.1', '1.1.0', '2.0.0', '3.0.0']) expect((await getSchema(id, v)).version).toBe(v);
  });

  it.each<[string, BatchInput, Array<string | number>, string]>([
    [
      'updating a missing field',
      { fields_to_update: [{ field_name: 'nope', description: 'x' }] },
      ['body', 'fields_to_update', 0, 'field_name'],
      'value_error.unknown_field',
    ],
    ['removing a missing field', { fields_to_remove: ['sku', 'nope'] }, ['body', 'fields_to_remove', 1], 'value_error.unknown_field'],
    [
      'adding an existing field',
      {
        fields_to_add: [
          { field_name: 'new', field_type: 'string' },
          { field_name: 'title', field_type: 'string' },
        ],
      },
      ['body', 'fields_to_add', 1, 'field_name'],
      'value_error.field_exists',
    ],
    [
      'naming a field twice',
      { fields_to_update: [{ field_name: 'title', description: 'x' }], fields_to_remove: ['title'] },
      ['body', 'fields_to_update', 0, 'field_name'],
      'value_error.duplicate_field',
    ],
    ['an empty batch', {}, ['body'], 'value_error.empty_batch'],
  ])('rejects %s with 422 atomically', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await putBatch(id, body);
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
    expect((await getSchema(id)).version).toBe('1.0.0');
  });

  // Bodies the client's types refuse (a type outside the enum, a string for a list): through supertest.
  it.each([
    ['a bad type', { fields_to_update: [{ field_name: 'title', field_type: 'date' }] }, ['body', 'fields_to_update', 0, 'field_type'], 'enum'],
    ['fields_to_remove of the wrong type', { fields_to_remove: 'title' }, ['body', 'fields_to_remove'], 'type_error'],
  ])('rejects %s with 422 atomically', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await request(server).put(batch(id)).set(org.auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
    expect((await getSchema(id)).version).toBe('1.0.0');
  });

  it('serialises concurrent edits into distinct versions', async () => {
    const id = await newCatalog();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((n) => addField(id, { field_name: n, field_type: 'string' })));
    expect(results.map((r) => r.response.status)).toEqual([200, 200, 200, 200]);
    expect(results.map((r) => r.data?.new_schema_version).sort()).toEqual(['1.1.0', '1.2.0', '1.3.0', '1.4.0']);
    expect((await getSchema(id)).total_fields).toBe(7);
  });
});

describe('schema service interface (used by item writes)', () => {
  const scope = (): Scope => ({ organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } });

  it('validates item data per version with data-path locations', async () => {
    const id = await newCatalog();
    expect((await addField(id, { field_name: 'color', field_type: 'string', validation_rules: { enum: ['red'] } })).response.status).toBe(200);
    const { validators } = createCatalogCaches();
    const validate = itemValidator(validators, await getCurrentSchema(testKnex(), id));
    expect(validate({ sku: 'A1', price: 3.5, color: 'red', __catalog_item_id: 'x' })).toEqual([]);
    const errors = validate({ price: 'cheap', color: 'blue', extra: 1 });
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['sku'], type: 'missing' }),
        expect.objectContaining({ loc: ['price'], type: 'type_error' }),
        expect.objectContaining({ loc: ['color'], type: 'enum' }),
        expect.objectContaining({ loc: ['extra'], type: 'extra_forbidden' }),
      ]),
    );
    // Compiled once per schema version: a second lookup of the same version reuses the validator.
    expect(itemValidator(validators, await getCurrentSchema(testKnex(), id))).toBe(validate);
  });

  it('evolves the schema with every unseen field as one minor version', async () => {
    const id = await newCatalog();
    const samples = [
      { sku: 'A', weight: 2, tags: ['x'], __catalog_item_id: 'ignored' },
      { sku: 'B', weight: 2.5, on_sale: true, note: null },
    ];
    const result = await testKnex().transaction((trx) => evolveSchema(trx, scope(), id, samples, 'Bulk upsert'));
    expect(result).toEqual({ evolved: true, new_schema_version: '1.1.0' });
    const s = await getSchema(id);
    expect(s.schema_definition.properties).toMatchObject({
      weight: { type: 'number' },
      tags: { type: 'array' },
      on_sale: { type: 'boolean' },
      note: { type: 'string' },
    });
    expect(s.schema_definition.properties).not.toHaveProperty('__catalog_item_id');
    expect(s).toMatchObject({ change_reason: 'Bulk upsert', total_fields: 7, migration_rules: { fields_added: ['weight', 'tags', 'on_sale', 'note'] } });
    expect(s.fields_workflow_info.find((f) => f.field_name === 'weight')).toMatchObject({ field_type: 'number', added_in_version: '1.1.0' });
    const again = await testKnex().transaction((trx) => evolveSchema(trx, scope(), id, samples, 'Bulk upsert'));
    expect(again).toEqual({ evolved: false });
    expect(await versionCount(id)).toBe(2);
  });
});
