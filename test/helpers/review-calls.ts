/**
 * The review routes as an API client calls them through the typed client (packages/client), for
 * the review test files: staged-change reads and writes of one activity, the catalog's
 * activity list, and a catalog seeded with items through the bulk route.
 */
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createTestCatalog } from './catalogs';
import { testKnex } from './db';

/** `POST …/staged-changes/append` body. */
export type AppendBody = paths['/api/public/activities/{activity_id}/staged-changes/append']['post']['requestBody']['content']['application/json'];
/** `GET …/staged-changes` query. */
export type ChangesQuery = NonNullable<paths['/api/activities/{activity_id}/staged-changes']['get']['parameters']['query']>;
/** `GET /public/catalogs/{id}/activities` query. */
export type ReviewActivitiesQuery = NonNullable<paths['/api/public/catalogs/{catalog_id}/activities']['get']['parameters']['query']>;

/** `{ params: { path: { activity_id } } }` of an activity route. */
export const act = (activity_id: string) => ({ params: { path: { activity_id } } });

/**
 * The review calls of one client: `append` (with another client when given), `listChanges` and
 * `getActivity` / `getSummary` (with `include_drafts` when given), `listActivities`, `cancel`.
 */
export function reviewCalls(api: CatalogClient) {
  return {
    append: (aid: string, body: AppendBody, client: CatalogClient = api) =>
      client.POST('/api/public/activities/{activity_id}/staged-changes/append', { ...act(aid), body }),
    listChanges: (aid: string, query: ChangesQuery = {}) =>
      api.GET('/api/activities/{activity_id}/staged-changes', { params: { path: { activity_id: aid }, query } }),
    listActivities: (catalogId: string, query: ReviewActivitiesQuery = {}) =>
      api.GET('/api/public/catalogs/{catalog_id}/activities', { params: { path: { catalog_id: catalogId }, query } }),
    getActivity: (aid: string, query: { include_drafts?: boolean } = {}) =>
      api.GET('/api/activities/{activity_id}', { params: { path: { activity_id: aid }, query } }),
    getSummary: (aid: string, query: { include_drafts?: boolean } = {}) =>
      api.GET('/api/activities/{activity_id}/staged-changes/summary', { params: { path: { activity_id: aid }, query } }),
    cancel: (aid: string) => api.POST('/api/activities/{activity_id}/cancel', act(aid)),
  };
}

/**
 * A catalog of `organizationId` (with `catalog` options: schema, strict mode) holding `items`,
 * written through the bulk route as `api`.
 * @returns the catalog id and the item ids in the order of `items` (by their `sku`)
 * @throws Error when the bulk write does not answer 200 or leaves an item unwritten
 */
export async function catalogWithItems(
  api: CatalogClient,
  organizationId: string,
  items: Array<{ sku: string } & Record<string, unknown>>,
  catalog: Parameters<typeof createTestCatalog>[1] = {},
): Promise<{ catalogId: string; ids: string[] }> {
  const catalogId = await createTestCatalog(organizationId, catalog);
  const res = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items } });
  if (res.response.status !== 200) throw new Error(`bulk write answered ${res.response.status}`);
  const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('id', 'business_key');
  const byKey = new Map(rows.map((r: { id: string; business_key: string }) => [r.business_key, r.id]));
  const missing = items.filter((it) => !byKey.has(it.sku)).map((it) => it.sku);
  if (missing.length) throw new Error(`items not written: ${missing.join(', ')}`);
  return { catalogId, ids: items.map((it) => byKey.get(it.sku) as string) };
}

/** The item schema of the review API tests: `sku` (required), `title`, `price`, `tags`, `dims`. */
export const REVIEW_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    title: { type: 'string' },
    price: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    dims: { type: 'object' },
  },
  required: ['sku'],
};

/**
 * A catalog of `organizationId` with {@link REVIEW_SCHEMA} (strict mode when `strict`) and `n`
 * items SKU-0… (title `Item i`, price i + 1, tags ['a']), written through the bulk route as `api`.
 */
export function reviewCatalog(api: CatalogClient, organizationId: string, n: number, strict = false): Promise<{ catalogId: string; ids: string[] }> {
  const items = Array.from({ length: n }, (_, i) => ({ sku: `SKU-${i}`, title: `Item ${i}`, price: i + 1, tags: ['a'] }));
  return catalogWithItems(api, organizationId, items, { schema_definition: REVIEW_SCHEMA, strict_mode: strict });
}

/** `POST /public/catalogs/{id}/activities` body. */
export type ReviewActivityInput = paths['/api/public/catalogs/{catalog_id}/activities']['post']['requestBody']['content']['application/json'];

/**
 * Creates an empty `custom_transform` activity shell in `catalogId` as the tool server does
 * (status `created`, no changes; `extra` overrides fields) and returns its id.
 * @throws (a failed expectation) when the route does not answer 200
 */
export async function reviewActivityShell(api: CatalogClient, catalogId: string, extra: Partial<ReviewActivityInput> = {}): Promise<string> {
  const res = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
    params: { path: { catalog_id: catalogId } },
    body: {
      type: 'custom_transform',
      description: 'Raise prices',
      status: 'created',
      staged_changes: [],
      metadata: { source: 'mcp_custom_transform', diff_summary: { rows_modified: 3 }, base_snapshot_id: null },
      input_data: { description: 'Raise prices', schema_changes: { fields_to_add: [] } },
      ...extra,
    },
  });
  expect(res.response.status).toBe(200);
  return res.data!.activity_id;
}
