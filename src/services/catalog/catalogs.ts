import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { Catalog } from '../../models/catalog';
import { CatalogMdVersion } from '../../models/catalog-md-version';
import { CatalogSchema } from '../../models/catalog-schema';
import { actorId } from '../access/auth';
import { copyCatalogItems } from './items/items-write';
import { getCurrentSchema, INITIAL_SCHEMA_VERSION, lockCatalog, syncFieldInfo } from './schema/schema';
import { assertValidSchemaDefinition } from './schema/schema-validation';
import { defaultMasterCatalogId } from './default-master-catalog';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';
import { newestFirstPage } from '../../models/newest-first';
import { markGridIndexesDropping } from './grid/grid-indexes';

/**
 * Catalog CRUD, duplication, the versioned markdown context and the quality prompt
 * (docs/api-reference.md "Catalogs" and "Catalog context and quality prompt"). Every function checks ownership first: unknown id → 404, another
 * organization's catalog → 403 (docs/api-reference.md "Authentication").
 */

/** `POST /public/catalogs` body (docs/api-reference.md "Catalogs"). */
export interface CreateCatalogInput {
  name: string;
  description?: string | null;
  unique_id_field: string;
  product_id_field?: string | null;
  auto_evolve_schema?: boolean;
  strict_mode?: boolean;
  /** Checked by assertValidSchemaDefinition (a JSON Schema with `properties`). */
  schema_definition: Record<string, unknown>;
  validation_rules?: Record<string, unknown>;
  catalog_md?: string;
  master_catalog_id?: string;
  use_master_catalog_defaults?: boolean;
}

/** `PUT /public/catalogs/{id}` body: only the given fields change. */
export interface UpdateCatalogInput {
  name?: string;
  description?: string | null;
  auto_evolve_schema?: boolean;
  strict_mode?: boolean;
  catalog_md?: string;
}

/** `POST …/duplicate` body (docs/api-reference.md "Catalogs"). */
export interface DuplicateCatalogInput {
  name?: string;
  description?: string | null;
  include_items?: boolean;
}

/** A catalog with its current schema version. */
export interface CatalogWithSchema {
  catalog: Catalog;
  schema: CatalogSchema;
}

/** One version of the catalog's markdown context (docs/api-reference.md "Catalog context and quality prompt"), `updated_at` the time it was written. */
export interface CatalogMd {
  catalog_id: string;
  catalog_md: string | null;
  version: number;
  updated_at: Date;
}

/** A catalog's quality prompt (docs/api-reference.md "Catalog context and quality prompt"); `prompt` and `updated_at` null when unset. */
export interface QualityPrompt {
  catalog_id: string;
  prompt: string | null;
  updated_at: Date | null;
}

/**
 * Loads a catalog of the scope's organization.
 * @throws NotFoundError (404) unknown id; ForbiddenError (403) another organization's
 */
export function loadCatalogOwned(knex: Knex | Knex.Transaction, scope: Scope, catalogId: string): Promise<Catalog> {
  return loadOwned<Catalog>(knex, Catalog, catalogId, scope, 'Catalog not found');
}

/** Stores version `version` of a catalog's markdown context. */
async function insertMdVersion(trx: Knex.Transaction, scope: Scope, catalogId: string, version: number, catalogMd: string | null, at: Date): Promise<void> {
  await CatalogMdVersion.query(trx).insert({ catalog_id: catalogId, version, catalog_md: catalogMd, created_by: actorId(scope), created_at: at });
}

/**
 * Creates a catalog with schema version 1.0.0 (docs/api-reference.md "Schema versions") whose `fields_workflow_info` is
 * derived from the properties, and catalog-md version 1. With `use_master_catalog_defaults` the
 * master catalog (`master_catalog_id`, else the organization's default master catalog,
 * ./default-master-catalog.ts) supplies the taxonomy, quality prompt and, when not given, the
 * catalog_md. `product_enabled` follows `product_id_field`.
 * @throws ValidationError (422) invalid schema_definition, or defaults asked without a master
 *   catalog and without an organization default
 * @throws NotFoundError / ForbiddenError for a master catalog that is unknown / not the caller's
 */
export async function createCatalog(knex: Knex, scope: Scope, input: CreateCatalogInput): Promise<CatalogWithSchema> {
  const definition = input.schema_definition;
  assertValidSchemaDefinition(definition, ['body', 'schema_definition']);
  return knex.transaction(async (trx) => {
    const masterId = input.master_catalog_id ?? (input.use_master_catalog_defaults ? await defaultMasterCatalogId(trx, scope) : null);
    if (input.use_master_catalog_defaults && !masterId) {
      throw ValidationError.at(
        ['body', 'master_catalog_id'],
        'master_catalog_id is required when use_master_catalog_defaults is true and the organization has no default master catalog (PUT /public/organization/default-master-catalog)',
        'missing',
      );
    }
    const master = masterId ? await loadCatalogOwned(trx, scope, masterId) : null;
    const inherit = input.use_master_catalog_defaults && master ? { catalog: master, schema: await getCurrentSchema(trx, master.id) } : null;
    const now = new Date();
    const id = newId();
    const catalogMd = input.catalog_md ?? inherit?.catalog.catalog_md ?? null;
    const qualityPrompt = inherit?.catalog.quality_prompt ?? null;
    await Catalog.query(trx).insert({
      id,
      organization_id: scope.organizationId,
      name: input.name,
      description: input.description ?? null,
      unique_id_field: input.unique_id_field,
      product_id_field: input.product_id_field ?? null,
      auto_evolve_schema: input.auto_evolve_schema ?? false,
      strict_mode: input.strict_mode ?? false,
      product_enabled: Boolean(input.product_id_field),
      current_schema_version: INITIAL_SCHEMA_VERSION,
      validation_rules: input.validation_rules ?? null,
      catalog_md: catalogMd,
      catalog_md_version: 1,
      quality_prompt: qualityPrompt,
      quality_prompt_updated_at: qualityPrompt === null ? null : now,
      master_catalog_id: master?.id ?? null,
      use_master_catalog_defaults: input.use_master_catalog_defaults ?? false,
      created_by_user_id: actorId(scope),
      created_at: now,
      updated_at: now,
    });
    const at = now.toISOString();
    await CatalogSchema.query(trx).insert({
      id: newId(),
      catalog_id: id,
      version: INITIAL_SCHEMA_VERSION,
      schema_definition: definition,
      taxonomy: inherit?.schema.taxonomy ?? null,
      backward_compatible: true,
      migration_rules: null,
      created_by: actorId(scope),
      change_reason: 'Initial schema',
      created_at: now,
      last_edited_by_workflow: null,
      last_edited_at: null,
      fields_workflow_info: syncFieldInfo(definition, [], INITIAL_SCHEMA_VERSION, at),
    });
    await insertMdVersion(trx, scope, id, 1, catalogMd, now);
    return { catalog: await Catalog.query(trx).findById(id).throwIfNotFound(), schema: await getCurrentSchema(trx, id) };
  });
}

/**
 * Lists the organization's catalogs, newest first (ties by id, so pages are stable).
 * @returns the rows, the total and the page number `floor(offset/limit)+1` (docs/api-reference.md "Pagination")
 */
export async function listCatalogs(
  knex: Knex,
  scope: Scope,
  q: { limit: number; offset: number },
): Promise<{ rows: Catalog[]; total_count: number; page: number; page_size: number }> {
  const base = Catalog.query(knex).where('organization_id', scope.organizationId);
  const { rows, total } = await newestFirstPage(base, q);
  return { rows, total_count: total, page: Math.floor(q.offset / q.limit) + 1, page_size: q.limit };
}

/**
 * One catalog with its current schema.
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function getCatalog(knex: Knex, scope: Scope, catalogId: string): Promise<CatalogWithSchema> {
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  return { catalog, schema: await getCurrentSchema(knex, catalogId) };
}

/**
 * Changes only the given fields and sets `updated_at`; a given `catalog_md` writes a new
 * catalog-md version (docs/api-reference.md "Catalog context and quality prompt": it "can alternatively be set through the catalog
 * PUT"). An empty body changes nothing.
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function updateCatalog(knex: Knex, scope: Scope, catalogId: string, input: UpdateCatalogInput): Promise<CatalogWithSchema> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    const { catalog_md, ...fields } = input;
    const now = new Date();
    if (catalog_md !== undefined) await writeCatalogMd(trx, scope, catalogId, catalog_md, now);
    if (Object.keys(fields).length > 0)
      await Catalog.query(trx)
        .where('id', catalogId)
        .patch({ ...fields, updated_at: now });
    return { catalog: await Catalog.query(trx).findById(catalogId).throwIfNotFound(), schema: await getCurrentSchema(trx, catalogId) };
  });
}

/**
 * Deletes a catalog; its items, schema versions, catalog-md versions and snapshots go with it
 * through `ON DELETE CASCADE` (docs/api-reference.md "Snapshots": "deletes items, schema and snapshots"); its grid
 * field indexes are marked for dropping (the caller asks their workflow, requestGridIndexWork).
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function deleteCatalog(knex: Knex, scope: Scope, catalogId: string): Promise<void> {
  await knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    // Waits for the item writers in flight (src/services/catalog/catalog-locks.ts).
    await lockCatalog(trx, catalogId);
    // Its grid indexes outlive the rows until dropped (src/services/catalog/grid/grid-indexes.ts).
    await markGridIndexesDropping(trx, catalogId, null);
    await Catalog.query(trx).deleteById(catalogId);
  });
}

/**
 * Duplicates a catalog (docs/api-reference.md "Catalogs") into a new catalog of the same organization: settings,
 * the current schema (definition, field lineage and taxonomy), catalog_md and quality prompt;
 * the items only with `include_items`. The copy's single schema row keeps the source's version
 * string, so the fields' `added_in_version` lineage and the versions recorded with copied items
 * still name a version that exists; its `change_reason` names the source. The name defaults to
 * `<source name> (copy)`.
 * @throws NotFoundError (404) / ForbiddenError (403) for the source catalog
 */
export async function duplicateCatalog(knex: Knex, scope: Scope, catalogId: string, input: DuplicateCatalogInput): Promise<CatalogWithSchema> {
  return knex.transaction(async (trx) => {
    const source = await loadCatalogOwned(trx, scope, catalogId);
    const schema = await getCurrentSchema(trx, catalogId);
    const now = new Date();
    const id = newId();
    await Catalog.query(trx).insert({
      id,
      organization_id: scope.organizationId,
      name: input.name ?? `${source.name} (copy)`.slice(0, 100),
      description: input.description === undefined ? source.description : input.description,
      unique_id_field: source.unique_id_field,
      product_id_field: source.product_id_field,
      auto_evolve_schema: source.auto_evolve_schema,
      strict_mode: source.strict_mode,
      product_enabled: source.product_enabled,
      current_schema_version: schema.version,
      validation_rules: source.validation_rules,
      catalog_md: source.catalog_md,
      catalog_md_version: 1,
      quality_prompt: source.quality_prompt,
      quality_prompt_updated_at: source.quality_prompt === null ? null : now,
      master_catalog_id: source.master_catalog_id,
      use_master_catalog_defaults: source.use_master_catalog_defaults,
      created_by_user_id: actorId(scope),
      created_at: now,
      updated_at: now,
    });
    await CatalogSchema.query(trx).insert({
      id: newId(),
      catalog_id: id,
      version: schema.version,
      schema_definition: schema.schema_definition,
      taxonomy: schema.taxonomy,
      backward_compatible: true,
      migration_rules: null,
      created_by: actorId(scope),
      change_reason: `Duplicated from catalog ${source.id} (schema version ${schema.version})`,
      created_at: now,
      last_edited_by_workflow: schema.last_edited_by_workflow,
      last_edited_at: schema.last_edited_at,
      fields_workflow_info: schema.fields_workflow_info,
    });
    await insertMdVersion(trx, scope, id, 1, source.catalog_md, now);
    if (input.include_items) await copyCatalogItems(trx, source.id, id);
    return { catalog: await Catalog.query(trx).findById(id).throwIfNotFound(), schema: await getCurrentSchema(trx, id) };
  });
}

/** Writes catalog-md version n+1 (atomic increment on the locked catalog row). */
async function writeCatalogMd(trx: Knex.Transaction, scope: Scope, catalogId: string, catalogMd: string, at: Date): Promise<number> {
  const [row] = await Catalog.query(trx)
    .where('id', catalogId)
    .patch({ catalog_md: catalogMd, catalog_md_version: trx.raw('catalog_md_version + 1'), updated_at: at })
    .returning('catalog_md_version');
  await insertMdVersion(trx, scope, catalogId, row.catalog_md_version, catalogMd, at);
  return row.catalog_md_version;
}

/**
 * `GET …/catalog-md`: the current context, or version `version` when given.
 * @throws NotFoundError (404) unknown catalog or version; ForbiddenError (403)
 */
export async function getCatalogMd(knex: Knex, scope: Scope, catalogId: string, version?: number): Promise<CatalogMd> {
  const catalog = await loadCatalogOwned(knex, scope, catalogId);
  const row = await CatalogMdVersion.query(knex)
    .select('version', 'catalog_md', 'created_at')
    .where({ catalog_id: catalogId, version: version ?? catalog.catalog_md_version })
    .first();
  if (!row) throw new NotFoundError(`catalog_md version ${version} not found`);
  return { catalog_id: catalogId, catalog_md: row.catalog_md, version: row.version, updated_at: row.created_at };
}

/**
 * `PUT …/catalog-md`: stores the text as the next version.
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function putCatalogMd(knex: Knex, scope: Scope, catalogId: string, catalogMd: string): Promise<CatalogMd> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    const at = new Date();
    const version = await writeCatalogMd(trx, scope, catalogId, catalogMd, at);
    return { catalog_id: catalogId, catalog_md: catalogMd, version, updated_at: at };
  });
}

/**
 * `GET …/quality-prompt` (`prompt` null when unset).
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function getQualityPrompt(knex: Knex, scope: Scope, catalogId: string): Promise<QualityPrompt> {
  const c = await loadCatalogOwned(knex, scope, catalogId);
  return { catalog_id: c.id, prompt: c.quality_prompt, updated_at: c.quality_prompt_updated_at };
}

/**
 * `PUT …/quality-prompt`: sets the prompt used by the judge and readiness checks.
 * @throws NotFoundError (404) / ForbiddenError (403)
 */
export async function putQualityPrompt(knex: Knex, scope: Scope, catalogId: string, prompt: string): Promise<QualityPrompt> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    const at = new Date();
    await Catalog.query(trx).where('id', catalogId).patch({ quality_prompt: prompt, quality_prompt_updated_at: at, updated_at: at });
    return { catalog_id: catalogId, prompt, updated_at: at };
  });
}
