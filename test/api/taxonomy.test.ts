// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { SHARED_DATA } from '../helpers/data';
import type { TaxonomyBody, ValidationErrorBody } from '../helpers/wire';

/**
 * Taxonomy routes (docs/api-reference.md "Taxonomy"): validation, enrichment
 * (level, path, children, inheritance), versioning, ETag/304, and the real 5,595-node Google
 * product taxonomy. Called through the typed client (packages/client); bodies of the wrong shape
 * and malformed JSON, which its types refuse, through supertest.
 */

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** `PUT …/taxonomy` body. */
type TaxonomyInput = paths['/api/public/catalogs/{catalog_id}/taxonomy']['put']['requestBody']['content']['application/json'];

async function newCatalog(): Promise<string> {
  const res = await api.POST('/api/public/catalogs', {
    body: { name: 'Taxonomy test', unique_id_field: 'sku', schema_definition: { properties: { sku: { type: 'string' } } } },
  });
  expect(res.response.status).toBe(200);
  return res.data!.id;
}

const url = (id: string) => `/api/public/catalogs/${id}/taxonomy`;
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
/** `GET …/taxonomy`, with `headers` (If-None-Match) when given. */
const getTaxonomy = (id: string, headers: Record<string, string> = {}) => api.GET('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(id), headers });
/** `PUT …/taxonomy` with `body`. */
const putTaxonomy = (id: string, body: TaxonomyInput) => api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(id), body });
const versionOf = async (id: string) => (await api.GET('/api/public/catalogs/{catalog_id}/schema', cat(id))).data;
const versionCount = async (id: string) => Number((await testKnex()('catalog_schemas').where('catalog_id', id).count({ n: '*' }))[0].n);

const apparel: TaxonomyInput = {
  name: 'Apparel',
  description: 'Clothing',
  hierarchy_levels: ['department', 'category', 'type'],
  nodes: {
    apparel: {
      name: 'Apparel',
      parent: null,
      attributes: [
        { name: 'material', type: 'string' },
        { name: 'gender', type: 'enum', values: ['men', 'women', 'unisex'] },
      ],
    },
    shoes: {
      name: 'Shoes',
      parent: 'apparel',
      attributes: [
        { name: 'size', type: 'number' },
        { name: 'material', type: 'enum', values: ['leather', 'mesh'] },
      ],
    },
    running: { name: 'Running Shoes', parent: 'shoes', description: 'For running', attributes: [{ name: 'drop_mm', type: 'number', required: true }] },
    hats: { name: 'Hats', parent: 'apparel' },
  },
};

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('taxonomy org');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

describe('taxonomy', () => {
  it('is null until set', async () => {
    const id = await newCatalog();
    const res = await api.GET('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(id), parseAs: 'text' });
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-type')).toMatch(/json/);
    expect(res.data).toBe('null');
  });

  it('stores a taxonomy as a minor version and returns enriched nodes', async () => {
    const id = await newCatalog();
    const res = await putTaxonomy(id, apparel);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ name: 'Apparel', description: 'Clothing', hierarchy_levels: ['department', 'category', 'type'] });
    const { apparel: root, shoes, running, hats } = (res.data as TaxonomyBody).nodes;
    expect(root).toMatchObject({ id: 'apparel', level: 0, path: ['Apparel'], children: ['shoes', 'hats'], inherited_attributes: [], parent: null });
    expect(shoes).toMatchObject({ level: 1, path: ['Apparel', 'Shoes'], children: ['running'] });
    expect(running).toMatchObject({ level: 2, path: ['Apparel', 'Shoes', 'Running Shoes'], children: [], description: 'For running' });
    // Nearest ancestor wins: material comes from Shoes, not Apparel.
    expect(running.inherited_attributes).toEqual(
      expect.arrayContaining([
        { name: 'material', type: 'enum', values: ['leather', 'mesh'], inherited_from: 'shoes' },
        { name: 'gender', type: 'enum', values: ['men', 'women', 'unisex'], inherited_from: 'apparel' },
        { name: 'size', type: 'number', inherited_from: 'shoes' },
      ]),
    );
    expect(running.inherited_attributes).toHaveLength(3);
    expect(running.all_attributes.map((a) => a.name).sort()).toEqual(['drop_mm', 'gender', 'material', 'size']);
    expect(shoes.all_attributes.find((a) => a.name === 'material')).toEqual({ name: 'material', type: 'enum', values: ['leather', 'mesh'] });
    expect(hats).toMatchObject({
      attributes: [],
      all_attributes: [
        { name: 'material', type: 'string', inherited_from: 'apparel' },
        { name: 'gender', type: 'enum', values: ['men', 'women', 'unisex'], inherited_from: 'apparel' },
      ],
    });
    const schema = await versionOf(id);
    expect(schema).toMatchObject({ version: '1.1.0', backward_compatible: true, migration_rules: { taxonomy_set: { name: 'Apparel', node_count: 4 } } });
    const get = await getTaxonomy(id);
    expect(get.data).toEqual(res.data);
  });

  it('accepts the array node form', async () => {
    const id = await newCatalog();
    const res = await putTaxonomy(id, {
      name: 'T',
      nodes: [
        { id: 'a', name: 'A', parent: null },
        { id: 'b', name: 'B', parent: 'a' },
      ],
    });
    expect(res.response.status).toBe(200);
    expect(res.data?.nodes?.b).toMatchObject({ level: 1, path: ['A', 'B'] });
  });

  it('sends an ETag and answers 304 to a matching If-None-Match', async () => {
    const id = await newCatalog();
    const put = await putTaxonomy(id, apparel);
    const first = await getTaxonomy(id);
    const etag = first.response.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(put.response.headers.get('etag')).toBe(etag);
    // A 304 is no success for openapi-fetch: its (empty) body is read as the error.
    const cached = await getTaxonomy(id, { 'If-None-Match': etag });
    expect(cached.response.status).toBe(304);
    expect(cached.error ?? (await cached.response.text())).toBe('');
    expect((await getTaxonomy(id, { 'If-None-Match': `"other", W/${etag}` })).response.status).toBe(304);
    expect((await getTaxonomy(id, { 'If-None-Match': '"stale"' })).response.status).toBe(200);
    expect((await putTaxonomy(id, { ...apparel, name: 'Apparel v2' })).response.status).toBe(200);
    const changed = await getTaxonomy(id, { 'If-None-Match': etag });
    expect(changed.response.status).toBe(200);
    expect(changed.data?.name).toBe('Apparel v2');
  });

  it('deletes the taxonomy with 204 as a major version', async () => {
    const id = await newCatalog();
    expect((await putTaxonomy(id, apparel)).response.status).toBe(200);
    const remove = () => api.DELETE('/api/public/catalogs/{catalog_id}/taxonomy', cat(id));
    const del = await remove();
    expect(del.response.status).toBe(204);
    expect(await del.response.text()).toBe('');
    expect(await versionOf(id)).toMatchObject({
      version: '2.0.0',
      backward_compatible: false,
      migration_rules: { change_type: 'major', taxonomy_removed: { name: 'Apparel' } },
    });
    expect((await api.GET('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(id), parseAs: 'text' })).data).toBe('null');
    expect((await remove()).response.status).toBe(404);
    expect(await versionCount(id)).toBe(3);
  });

  it.each<[string, TaxonomyInput, Array<string | number>, string]>([
    ['an unknown parent', { name: 'T', nodes: { a: { name: 'A', parent: 'zz' } } }, ['body', 'nodes', 'a', 'parent'], 'value_error.taxonomy_unknown_parent'],
    [
      'a cycle',
      { name: 'T', nodes: { r: { name: 'R', parent: null }, a: { name: 'A', parent: 'b' }, b: { name: 'B', parent: 'c' }, c: { name: 'C', parent: 'a' } } },
      ['body', 'nodes', 'a', 'parent'],
      'value_error.taxonomy_cycle',
    ],
    ['a self-parent', { name: 'T', nodes: { a: { name: 'A', parent: 'a' } } }, ['body', 'nodes', 'a', 'parent'], 'value_error.taxonomy_cycle'],
    [
      'a duplicate id',
      {
        name: 'T',
        nodes: [
          { id: 'a', name: 'A', parent: null },
          { id: 'a', name: 'A2', parent: null },
        ],
      },
      ['body', 'nodes', 1, 'id'],
      'value_error.taxonomy_duplicate_id',
    ],
    [
      'an id that differs from its key',
      { name: 'T', nodes: { a: { id: 'b', name: 'A', parent: null } } },
      ['body', 'nodes', 'a', 'id'],
      'value_error.taxonomy_id',
    ],
    [
      'a repeated attribute',
      { name: 'T', nodes: { a: { name: 'A', parent: null, attributes: [{ name: 'x' }, { name: 'x' }] } } },
      ['body', 'nodes', 'a', 'attributes', 1, 'name'],
      'value_error.taxonomy_duplicate_attribute',
    ],
  ])('rejects %s with 422 and writes no version', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await putTaxonomy(id, body);
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
  });

  // Bodies of the wrong shape: the client's types refuse them, so supertest sends them.
  it.each([
    ['a node without a name', { name: 'T', nodes: { a: { parent: null } } }, ['body', 'nodes', 'a', 'name'], 'missing'],
    ['nodes of the wrong type', { name: 'T', nodes: 'a,b' }, ['body', 'nodes'], 'type_error'],
    ['a missing name', { nodes: {} }, ['body', 'name'], 'missing'],
  ])('rejects %s with 422 and writes no version', async (_label, body, loc, type) => {
    const id = await newCatalog();
    const res = await request(server).put(url(id)).set(org.auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await versionCount(id)).toBe(1);
  });

  it('rejects malformed JSON with 422 json_invalid', async () => {
    const id = await newCatalog();
    const res = await request(server).put(url(id)).set(org.auth).set('Content-Type', 'application/json').send('{"nodes": {');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_invalid');
    expect(await versionCount(id)).toBe(1);
  });
});

/** Converts Google's `id - A > B > C` lines into nodes (parent = the id of the path minus its last name). */
function googleTaxonomy(): {
  name: string;
  hierarchy_levels: string[];
  nodes: Record<string, { name: string; parent: string | null; attributes?: Array<{ name: string; type: string }> }>;
} {
  const text = fs.readFileSync(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt'), 'utf8');
  const idByPath = new Map<string, string>();
  const nodes: Record<string, { name: string; parent: string | null; attributes?: Array<{ name: string; type: string }> }> = {};
  for (const line of text.split('\n')) {
    const m = /^(\d+) - (.+)$/.exec(line.trim());
    if (!m) continue;
    const names = m[2].split(' > ');
    const parentPath = names.slice(0, -1).join(' > ');
    idByPath.set(m[2], m[1]);
    nodes[m[1]] = { name: names[names.length - 1], parent: names.length === 1 ? null : (idByPath.get(parentPath) as string) };
  }
  return { name: 'Google Product Taxonomy 2021-09-21', hierarchy_levels: ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'], nodes };
}

describe('Google product taxonomy (5,595 nodes)', () => {
  // Its time is measured by bench/taxonomy-google.ts (time limits live in bench/, not in tests).
  it('converts, stores and enriches it with correct paths, levels and inheritance', async () => {
    const taxonomy = googleTaxonomy();
    expect(Object.keys(taxonomy.nodes)).toHaveLength(5595);
    expect(Object.values(taxonomy.nodes).every((n) => n.parent === null || n.parent in taxonomy.nodes)).toBe(true);
    // Attributes at three depths of Electronics > Video > Televisions to check inheritance.
    taxonomy.nodes['222'].attributes = [
      { name: 'power_source', type: 'string' },
      { name: 'warranty_years', type: 'number' },
    ];
    taxonomy.nodes['386'].attributes = [
      { name: 'resolution', type: 'string' },
      { name: 'warranty_years', type: 'integer' },
    ];
    taxonomy.nodes['404'].attributes = [{ name: 'screen_size_in', type: 'number' }];
    const id = await newCatalog();
    const put = await putTaxonomy(id, taxonomy);
    expect(put.response.status).toBe(200);
    const get = await getTaxonomy(id);
    const nodes = (get.data as TaxonomyBody).nodes;
    expect(Object.keys(nodes)).toHaveLength(5595);
    expect(Object.values(nodes).filter((n) => n.level === 0)).toHaveLength(21);
    const depthCounts = Object.values(nodes).reduce((acc: Record<number, number>, n) => ({ ...acc, [n.level]: (acc[n.level] ?? 0) + 1 }), {});
    expect(depthCounts).toEqual({ 0: 21, 1: 192, 2: 1349, 3: 2203, 4: 1385, 5: 397, 6: 48 });
    expect(nodes['404']).toMatchObject({ name: 'Televisions', level: 2, path: ['Electronics', 'Video', 'Televisions'], parent: '386' });
    expect(nodes['328']).toMatchObject({ level: 2, path: ['Electronics', 'Computers', 'Laptops'] });
    expect(nodes['305'].path).toEqual(['Electronics', 'Video', 'Computer Monitors']);
    expect(nodes['3237']).toMatchObject({ level: 1, path: ['Animals & Pet Supplies', 'Live Animals'], children: [] });
    expect(nodes['1'].children).toEqual(expect.arrayContaining(['3237', '2']));
    expect(nodes['386'].children).toEqual(expect.arrayContaining(['404', '305']));
    const tv = nodes['404'];
    expect(tv.inherited_attributes).toEqual(
      expect.arrayContaining([
        { name: 'power_source', type: 'string', inherited_from: '222' },
        { name: 'warranty_years', type: 'integer', inherited_from: '386' },
        { name: 'resolution', type: 'string', inherited_from: '386' },
      ]),
    );
    expect(tv.inherited_attributes).toHaveLength(3);
    expect(tv.all_attributes.map((a) => a.name).sort()).toEqual(['power_source', 'resolution', 'screen_size_in', 'warranty_years']);
    expect(nodes['328'].inherited_attributes).toEqual([
      { name: 'power_source', type: 'string', inherited_from: '222' },
      { name: 'warranty_years', type: 'number', inherited_from: '222' },
    ]);
    const deepest = Object.values(nodes).find((n) => n.level === 6)!;
    expect(deepest.path).toHaveLength(7);
    const cached = await getTaxonomy(id, { 'If-None-Match': get.response.headers.get('etag')! });
    expect(cached.response.status).toBe(304);
  });
});
