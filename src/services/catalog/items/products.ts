import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../../lib/errors';
import type { Catalog } from '../../../models/catalog';
import { CatalogItem } from '../../../models/catalog-item';
import type { CatalogCaches, CatalogDeps } from '../catalog-caches';
import { evolveSchema, getCurrentSchema, lockCatalog } from '../schema/schema';
import { itemValidator } from '../schema/schema-validation';
import { loadCatalogOwned } from '../catalogs';
import { loadItem, readItem } from './items-read';
import { throwSingleItemError, writeItems, WriteResult } from './items-write';
import type { Scope } from '../../access/scope';

/**
 * Products and their variants (docs/api-reference.md "Products and variants"). A product is an item of entity type
 * `product`; its variants point to it by `parent_id`. Product-level fields are the keys
 * starting `product_`: they live on the product and are copied into every variant, so each
 * variant row is complete on its own (raw pulls, search, strict validation). The catalog's
 * `product_id_field` value of the product is shared the same way.
 */

/** Product-level keys start with this prefix (docs/api-reference.md "Products and variants"). */
export const PRODUCT_KEY_PREFIX = 'product_';

/** Loads a product item of the catalog; a variant id or an unknown id is a 404. */
async function loadProduct(trx: Knex.Transaction, scope: Scope, catalogId: string, productId: string): Promise<CatalogItem> {
  const product = await loadItem(trx, scope, catalogId, productId, 'Product not found');
  if (product.entity_type !== 'product') throw new NotFoundError('Product not found');
  return product;
}

/** The data every variant of `product` shares: its `product_*` keys and its product id field. */
function sharedData(catalog: Catalog, product: Record<string, unknown>): Record<string, unknown> {
  const shared: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(product)) if (k.startsWith(PRODUCT_KEY_PREFIX)) shared[k] = v;
  const pidField = catalog.product_id_field;
  if (pidField && product[pidField] !== undefined) shared[pidField] = product[pidField];
  return shared;
}

/** Splits a product body into its `product_*` keys and the names of every other key (ignored). */
function splitProductFields(body: Record<string, unknown>): { patch: Record<string, unknown>; ignored: string[] } {
  const patch: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k.startsWith(PRODUCT_KEY_PREFIX)) patch[k] = v;
    else ignored.push(k);
  }
  return { patch, ignored };
}

/**
 * Applies a product patch to the product and all its variants in one UPDATE (after strict
 * validation of every merged row, and auto-evolution when enabled).
 * @returns the number of variants updated and whether/to which version the schema evolved
 * @throws ValidationError (422) with `loc` under `locPrefix` when a merged row fails the schema
 */
async function applyProductPatch(
  trx: Knex.Transaction,
  caches: CatalogCaches,
  scope: Scope,
  catalog: Catalog,
  product: Pick<CatalogItem, 'id'>,
  patch: Record<string, unknown>,
  autoEvolve: boolean,
  locPrefix: Array<string | number>,
): Promise<{ variants_updated: number; evolved: { evolved: boolean; new_schema_version?: string } }> {
  const evolved = autoEvolve ? await evolveSchema(trx, scope, catalog.id, [patch], 'Auto-evolved from product update') : { evolved: false };
  if (catalog.strict_mode) {
    const validate = itemValidator(caches.validators, await getCurrentSchema(trx, catalog.id));
    const rows = await CatalogItem.query(trx).where('id', product.id).orWhere('parent_id', product.id).select('id', 'data');
    for (const row of rows) {
      const problems = validate({ ...row.data, ...patch });
      if (problems.length > 0)
        throw new ValidationError(
          problems.map((p) => ({ ...p, loc: [...locPrefix, ...p.loc], msg: row.id === product.id ? p.msg : `${p.msg} (variant ${row.id})` })),
        );
    }
  }
  const updated = await CatalogItem.query(trx)
    .where('catalog_id', catalog.id)
    .andWhere((q) => q.where('id', product.id).orWhere('parent_id', product.id))
    .patch({ data: trx.raw('data || ?::jsonb', [JSON.stringify(patch)]), current_version: trx.raw('current_version + 1'), updated_at: trx.fn.now() });
  return { variants_updated: updated - 1, evolved };
}

/**
 * Creates (or, by business key, updates) one variant under a product (docs/api-reference.md "Products and variants"). `body` is the
 * variant data, or `{data, unique_identifier?, source_info?}`; the business key comes from
 * the data's `unique_id_field` or, when absent, from `unique_identifier` (stored into the data).
 * @returns the stored variant row
 * @throws ValidationError (422) without a business key or against the schema in strict mode;
 *   NotFoundError (404) unknown product; ForbiddenError (403)
 */
export async function createVariant(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  productId: string,
  body: Record<string, unknown>,
): Promise<CatalogItem> {
  return deps.knex.transaction(async (trx) => {
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    await lockCatalog(trx, catalogId);
    const product = await loadProduct(trx, scope, catalogId, productId);
    const wrapped =
      typeof body.data === 'object' &&
      body.data !== null &&
      !Array.isArray(body.data) &&
      Object.keys(body).every((k) => ['data', 'unique_identifier', 'source_info'].includes(k));
    const data: Record<string, unknown> = { ...(wrapped ? (body.data as Record<string, unknown>) : body) };
    const uid = body.unique_identifier;
    const sourceInfo = body.source_info;
    if (!wrapped) {
      delete data.unique_identifier;
      delete data.source_info;
    }
    const keyField = catalog.unique_id_field;
    if (data[keyField] === undefined && data.sku !== undefined && keyField !== 'sku') data[keyField] = data.sku;
    if (data[keyField] === undefined && (typeof uid === 'string' || typeof uid === 'number') && String(uid) !== '') data[keyField] = uid;
    if (data[keyField] === undefined)
      throw ValidationError.at(['body', keyField], `A variant needs ${keyField === 'sku' ? 'sku' : `${keyField} (or sku)`} or unique_identifier`, 'missing');
    const result = await writeItems(trx, deps.caches.catalog, scope, catalog, [data], {
      parent: { id: product.id, shared: sharedData(catalog, product.data) },
      source_info: typeof sourceInfo === 'object' && sourceInfo !== null ? (sourceInfo as Record<string, unknown>) : null,
    });
    if (result.errors.length > 0) throwSingleItemError(result.errors[0], wrapped ? ['body', 'data'] : ['body']);
    return (await readItem(trx, result.ids[0] as string)) as CatalogItem;
  });
}

/**
 * `PUT …/products/{product_id}` (docs/api-reference.md "Products and variants"): applies only the `product_*` keys of `body` to the
 * product and shares them with every variant; other keys are ignored and listed.
 * @returns `{product, variants_updated, ignored_fields}`
 * @throws ValidationError (422) when no `product_*` key is given or strict validation fails;
 *   NotFoundError (404); ForbiddenError (403)
 */
export async function updateProduct(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  productId: string,
  body: Record<string, unknown>,
): Promise<{ product: CatalogItem; variants_updated: number; ignored_fields: string[] }> {
  return deps.knex.transaction(async (trx) => {
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    await lockCatalog(trx, catalogId);
    const product = await loadProduct(trx, scope, catalogId, productId);
    const { patch, ignored } = splitProductFields(body);
    if (Object.keys(patch).length === 0)
      throw ValidationError.at(['body'], `No product-level field given (keys must start with ${PRODUCT_KEY_PREFIX})`, 'missing');
    const { variants_updated } = await applyProductPatch(trx, deps.caches.catalog, scope, catalog, product, patch, catalog.auto_evolve_schema, ['body']);
    return { product: (await readItem(trx, product.id)) as CatalogItem, variants_updated, ignored_fields: ignored };
  });
}

/** Body of `POST …/products/{product_id}/items/bulk` (docs/api-reference.md "Products and variants"). */
export interface BulkVariantsInput {
  product?: Record<string, unknown>;
  variants: unknown[];
  source_info?: Record<string, unknown>;
  auto_evolve_schema?: boolean;
}

/** The bulk response: the counters plus `product_id`, `duplicates_in_payload`, `warnings`. */
export interface BulkVariantsResult extends WriteResult {
  product_id: string;
  duplicates_in_payload: number;
  warnings: string[];
}

/**
 * Bulk upsert of one product's variants (docs/api-reference.md "Products and variants"): first the `product_*` fields of `product`
 * (shared with every variant), then the variants as one set-based write under the product.
 * Variants repeating a business key count in `duplicates_in_payload` (the last one wins).
 * The caller enforces the 1000-variant limit (413).
 * @throws ValidationError (422) when the product patch fails strict validation; NotFoundError (404); ForbiddenError (403)
 */
export async function bulkUpsertVariants(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  productId: string,
  body: BulkVariantsInput,
): Promise<BulkVariantsResult> {
  return deps.knex.transaction(async (trx) => {
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    await lockCatalog(trx, catalogId);
    const product = await loadProduct(trx, scope, catalogId, productId);
    let productData = product.data;
    const autoEvolve = body.auto_evolve_schema ?? catalog.auto_evolve_schema;
    const warnings: string[] = [];
    let productEvolved: { evolved: boolean; new_schema_version?: string } = { evolved: false };
    if (body.product) {
      const { patch, ignored } = splitProductFields(body.product);
      if (ignored.length > 0) warnings.push(`Ignored product fields without the ${PRODUCT_KEY_PREFIX} prefix: ${ignored.join(', ')}`);
      if (Object.keys(patch).length > 0) {
        productEvolved = (await applyProductPatch(trx, deps.caches.catalog, scope, catalog, product, patch, autoEvolve, ['body', 'product'])).evolved;
        productData = { ...productData, ...patch };
      }
    }
    const result = await writeItems(trx, deps.caches.catalog, scope, catalog, body.variants, {
      parent: { id: product.id, shared: sharedData(catalog, productData) },
      source_info: body.source_info,
      auto_evolve_schema: autoEvolve,
    });
    const duplicates = result.errors.filter((e) => e.kind === 'duplicate').length;
    if (duplicates > 0) warnings.push(`${duplicates} variant(s) repeated a business key in the payload; the last occurrence was kept`);
    const newVersion = result.new_schema_version ?? productEvolved.new_schema_version;
    return {
      ...result,
      schema_evolved: result.schema_evolved || productEvolved.evolved,
      ...(newVersion ? { new_schema_version: newVersion } : {}),
      product_id: product.id,
      duplicates_in_payload: duplicates,
      warnings,
    };
  });
}
