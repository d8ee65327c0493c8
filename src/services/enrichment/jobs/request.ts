import type { Knex } from 'knex';
import type { CatalogTextExample, FieldType, OutputField } from '../../../enrichment/types';
import { ConflictError, ValidationDetail, ValidationError } from '../../../lib/errors';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { assignDefined, fillUndefined } from '../../../lib/objects';
import type { JsonSchemaProperty } from '../../../models/catalog-schema';
import type { EnrichJobConfig, EnrichRequest } from '../../../schemas/enrich';
import { ENRICH_DEFAULTS } from '../../../schemas/enrich-defaults';
import { isGrouped } from '../../catalog/items/items-keys';
import { getCurrentSchema } from '../../catalog/schema/schema';
import type { SqlPart } from '../../catalog/grid/item-grid-query';
import { loadCatalogOwned } from '../../catalog/catalogs';
import { catalogTextExamples } from '../rows/examples';
import { CatalogTarget, knownValues } from '../rows/staging';
import { applyTemplate, loadTemplate } from './templates';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';

/**
 * Turns a validated enrich request into a job plan: the config stored on the job and where its
 * items come from (docs/api-enrichment.md "Enrichment jobs" and Rules; docs/api-enrichment.md "Enrichment jobs").
 * Pure of HTTP; every refusal is a typed error (422 / 404 / 403 / 409).
 */

/**
 * A part of a catalog's items (the console's grid selection, src/services/catalog/grid/grid-selection.ts):
 * SQL over `catalog_items` and its bindings. Only the service passes one (fill the gaps and the
 * bulk enrich/classify actions), never a request body.
 */
export type ItemSelection = SqlPart;

/** Where a job's rows come from. */
export type ItemPlan =
  | { kind: 'inline'; items: unknown[] }
  | { kind: 'file'; file: string; fileName: string }
  | { kind: 'catalog'; catalogId: string; where?: ItemSelection }
  | { kind: 'resume'; from: EnrichmentJob }
  | { kind: 'reextract'; from: EnrichmentJob; indices: number[] | null }
  | { kind: 'flow'; runId: string; nodeId: string };

/**
 * The resolved job: stored config (request without items + internal keys), item source, and
 * for a fresh `web_search: false` job writing to a catalog the catalog's items sampled as text
 * examples (stored beside the job, not in its config: src/services/enrichment/rows/examples.ts;
 * resumed and re-extracted jobs copy the earlier job's instead).
 */
export interface JobPlan {
  config: EnrichJobConfig;
  items: ItemPlan;
  catalogId: string | null;
  examples?: CatalogTextExample[];
}

/** Request keys a resumed job may set: everything else comes from the earlier job's config. */
const RESUME_KEYS = new Set(['source_activity_id', 'async_mode', 'webhook_url']);

/** Request keys a re-extraction may set: extraction-level overrides only (no research happens). */
const REEXTRACT_KEYS = new Set([
  'reextract_from_activity_id',
  'async_mode',
  'webhook_url',
  'prompt',
  'output_schema',
  'global_feedback',
  'item_feedback',
  'source_row_indices',
  'include_debug_log',
  'include_service_usage',
  'pricing_estimates',
  'low_confidence',
  'validate_semantics',
  'predict_taxonomy',
  'predict_taxonomy_attributes',
  'taxonomy',
  'staged_status',
  'include_source_explanations',
  'review_mode',
  'audit_decisions_enabled',
  'file_name',
]);

/** Config keys that describe one request, not the recipe: never inherited by resume / re-extract. */
const PER_REQUEST_KEYS = ['async_mode', 'webhook_url', 'source_activity_id', 'global_feedback', 'item_feedback', 'source_row_indices', 'max_rows'] as const;

/** Output fields from a catalog's current JSON Schema (used when the request names `catalog_id` only). */
export function fieldsFromCatalogSchema(definition: { properties?: Record<string, JsonSchemaProperty> } | null): OutputField[] {
  return Object.entries(definition?.properties ?? {})
    .flatMap(([name, p]) => (isFieldType(p?.type) ? [{ name, p, type: p.type }] : []))
    .map(({ name, p, type }) => {
      const items = typeof p.items === 'object' ? p.items : undefined;
      return {
        name,
        type,
        description: p.description ?? name,
        ...(typeof p.unit === 'string' && p.unit ? { unit: p.unit } : {}),
        // Catalog enums are passed on as stored (their members are JSON scalars in practice).
        ...(Array.isArray(p.enum) ? { enum: p.enum as Array<string | number | boolean> } : {}),
        ...(type === 'array'
          ? { array_element_type: items?.format === 'uri' ? ('image_url' as const) : items?.type === 'number' ? ('number' as const) : ('string' as const) }
          : {}),
      };
    });
}

/** Whether a JSON Schema `type` is one an output field can have. */
function isFieldType(type: unknown): type is FieldType {
  return typeof type === 'string' && ['string', 'number', 'integer', 'boolean', 'array'].includes(type);
}

/** Checks one list of output fields (duplicates, array-only options); fills `array_element_type`. */
function checkFields(fields: OutputField[], loc: Array<string | number>, details: ValidationDetail[]): void {
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    if (seen.has(f.name)) details.push({ loc: [...loc, i, 'name'], msg: `Duplicate field name ${f.name}`, type: 'value_error' });
    seen.add(f.name);
    f.type ??= 'string';
    if (f.type === 'array' && !f.array_element_type) f.array_element_type = 'string';
    if (f.type !== 'array' && (f.array_element_type || f.items_enum))
      details.push({ loc: [...loc, i], msg: 'array_element_type and items_enum apply only to type array', type: 'value_error' });
  });
}

/** The fields of an attribute-set entry (array form or `{attributes}` form). */
function setFields(entry: unknown): OutputField[] {
  if (Array.isArray(entry)) return entry as OutputField[];
  return ((entry as { attributes?: OutputField[] })?.attributes ?? []) as OutputField[];
}

/**
 * The request shapes existing clients send, in the service's own terms: `review_mode`
 * as a boolean — `true` asks for the post-enrichment audit (stored as `audit_decisions_enabled:
 * true`, every change staged with `staged_status`), `false` is `"all"`. Other keys pass unchanged.
 */
export function normalizeClientShapes<T extends { review_mode?: 'all' | 'flagged' | boolean; audit_decisions_enabled?: boolean }>(
  r: T,
): Omit<T, 'review_mode'> & { review_mode?: 'all' | 'flagged' } {
  const { review_mode: mode, ...rest } = r;
  if (typeof mode !== 'boolean') return { ...rest, ...(mode !== undefined ? { review_mode: mode } : {}) };
  return { ...rest, review_mode: 'all', ...(mode ? { audit_decisions_enabled: true } : {}) };
}

/** Options the service accepts and stores but whose behaviour is not (yet) provided: recorded, never silent. */
function recordedNoops(r: EnrichJobConfig, hasKnowledgeFiles: boolean): string[] {
  const out: string[] = [];
  if (r.knowledge_base_vector_store_id)
    out.push(
      'knowledge_base_vector_store_id: recorded on the job but not searched; this service keeps no vector stores and reads only the knowledge_base_files uploaded with the request',
    );
  if ((r.knowledge_base_enabled || r.knowledge_base_sources || r.knowledge_base_metadata) && !hasKnowledgeFiles) {
    out.push('knowledge_base: only uploaded knowledge_base_files are read by the extractor; knowledge_base_sources given without files are listed as they are');
  }
  if (r.include_source_explanations === false) out.push('include_source_explanations: always enabled for public jobs');
  return out;
}

/** Which keys of the request name an item source. */
function itemSources(req: EnrichRequest, hasFile: boolean): string[] {
  return [
    ...(req.items !== undefined ? ['items'] : []),
    ...(hasFile ? ['items_file'] : []),
    ...(['source_catalog_id', 'source_activity_id', 'reextract_from_activity_id'] as const).filter((k) => req[k] !== undefined),
  ];
}

/**
 * Resolves a request into a {@link JobPlan}.
 * @param req the validated request (JSON body or multipart `request_json`), defaults NOT applied
 * @param upload the uploaded items file, for multipart requests
 * @param selection with `source_catalog_id`: only these items of the source catalog (the console's
 *   grid selection; never from a request body)
 * @throws ValidationError (422); NotFoundError (404) / ForbiddenError (403) for a referenced
 *   catalog, template or activity; ConflictError (409) when resuming or re-extracting a job that
 *   is still running
 */
export async function planJob(
  knex: Knex,
  scope: Scope,
  req: EnrichRequest,
  upload?: { file: string; fileName: string; knowledgeFiles: boolean },
  selection?: ItemSelection,
): Promise<JobPlan> {
  const details: ValidationDetail[] = [];
  const sources = itemSources(req, Boolean(upload));
  if (sources.length > 1) {
    for (const key of sources.slice(1)) details.push({ loc: ['body', key], msg: `Give one item source only (got ${sources.join(', ')})`, type: 'value_error' });
  }
  if (details.length) throw new ValidationError(details);
  if (req.source_activity_id) return planResume(knex, scope, req, req.source_activity_id);
  if (req.reextract_from_activity_id) return planReextract(knex, scope, req, req.reextract_from_activity_id);
  return planFresh(knex, scope, req, upload, selection);
}

async function planFresh(
  knex: Knex,
  scope: Scope,
  raw: EnrichRequest,
  upload?: { file: string; fileName: string; knowledgeFiles: boolean },
  selection?: ItemSelection,
): Promise<JobPlan> {
  let r: EnrichRequest & Pick<EnrichJobConfig, 'template'> = { ...raw };
  if (r.template_id) {
    const template = await loadTemplate(knex, scope, r.template_id);
    r = applyTemplate(r, template);
    r.template = { id: template.id, name: template.name, safety: template.safety };
  }
  fillUndefined(r, ENRICH_DEFAULTS);
  const { items, ...request } = normalizeClientShapes(r);
  const config: EnrichJobConfig = request;
  let outputSchema = config.output_schema as OutputField[] | undefined;
  let target: CatalogTarget | null = null;
  let examples: CatalogTextExample[] | undefined;
  if (config.catalog_id) {
    const catalog = await loadCatalogOwned(knex, scope, config.catalog_id);
    const schema = await getCurrentSchema(knex, catalog.id);
    // The catalog's key fields identify its items (docs/api-reference.md "Items"): never researched, so never rewritten.
    const keys = new Set([catalog.unique_id_field, catalog.product_id_field].filter(Boolean));
    if (!outputSchema?.length) outputSchema = fieldsFromCatalogSchema(schema.schema_definition).filter((f) => !keys.has(f.name));
    if (!config.taxonomy && schema.taxonomy) config.taxonomy = schema.taxonomy;
    target = { catalog_id: catalog.id, unique_id_field: catalog.unique_id_field, grouped: isGrouped(catalog) };
  }
  if (config.source_catalog_id) await loadCatalogOwned(knex, scope, config.source_catalog_id);
  const details: ValidationDetail[] = [];
  if (!items && !upload && !config.source_catalog_id)
    details.push({
      loc: ['body', 'items'],
      msg: 'Field required: at least one item (or items_file, source_catalog_id, source_activity_id, reextract_from_activity_id)',
      type: 'missing',
    });
  else if (Array.isArray(items) && items.length === 0) details.push({ loc: ['body', 'items'], msg: 'Field required: at least one item', type: 'missing' });
  if (!outputSchema?.length)
    details.push({ loc: ['body', 'output_schema'], msg: 'Field required unless catalog_id or template_id supplies a schema', type: 'missing' });
  checkFields(outputSchema ?? [], ['body', 'output_schema'], details);
  for (const [id, entry] of Object.entries((config.attribute_sets ?? {}) as Record<string, unknown>)) {
    checkFields(setFields(entry), ['body', 'attribute_sets', id, ...(Array.isArray(entry) ? [] : ['attributes'])], details);
  }
  if (config.strict_hosted_media && !config.host_media)
    details.push({ loc: ['body', 'strict_hosted_media'], msg: 'strict_hosted_media needs host_media: true', type: 'value_error' });
  if (details.length) throw new ValidationError(details);
  config.output_schema = outputSchema;
  if (target) {
    config.catalog_target = target;
    const names = [
      ...new Set([
        ...outputSchema!.map((f) => f.name),
        ...Object.values((config.attribute_sets ?? {}) as Record<string, unknown>).flatMap((e) => setFields(e).map((f) => f.name)),
      ]),
    ];
    config.known_values = await knownValues(knex, target.catalog_id, names);
    // Only web_search: false extracts from the item's own text, which is what the examples teach.
    if (config.web_search === false) examples = await catalogTextExamples(knex, target.catalog_id, names);
  }
  if (upload && config.file_name === undefined) config.file_name = upload.fileName;
  config.recorded_noops = recordedNoops(config, Boolean(upload?.knowledgeFiles));
  const itemPlan: ItemPlan = upload
    ? { kind: 'file', file: upload.file, fileName: upload.fileName }
    : config.source_catalog_id
      ? { kind: 'catalog', catalogId: config.source_catalog_id, ...(selection ? { where: selection } : {}) }
      : { kind: 'inline', items: items as unknown[] };
  return { config, items: itemPlan, catalogId: config.catalog_id ?? null, ...(examples ? { examples } : {}) };
}

/** Loads the earlier job of a resume / re-extraction (its id is the activity id, docs/api-enrichment.md "Enrichment jobs"). */
async function loadSourceJob(knex: Knex, scope: Scope, id: string, key: string): Promise<EnrichmentJob> {
  const job = await loadOwned<EnrichmentJob>(knex, EnrichmentJob, id, scope, 'Activity not found');
  if (job.status === 'running') throw new ConflictError(`The job of ${key} ${id} is still running; cancel it or wait until it finishes`);
  return job;
}

function refuseKeys(req: EnrichRequest, allowed: Set<string>, why: string): void {
  const details = Object.entries(req)
    .filter(([k, v]) => v !== undefined && !allowed.has(k))
    .map(([k]) => k)
    .map((k) => ({ loc: ['body', k], msg: why, type: 'value_error' }));
  if (details.length) throw new ValidationError(details);
}

/** Keys of a job's config that tie it to one request or one catalog: a saved recipe (a flow's `enrich` node) drops them. */
const NOT_RECIPE_KEYS = [
  ...PER_REQUEST_KEYS,
  'catalog_id',
  'source_catalog_id',
  'reextract_from_activity_id',
  'catalog_target',
  'known_values',
  'file_name',
  'staged_status',
  'quality_prompt',
] as const;

/**
 * The reusable recipe of a job (docs/api-review.md "Flow runs": the `enrich` node runs "the enrichment engine
 * with a saved config"): its config without per-request and catalog-binding keys, with the
 * output schema and taxonomy it actually used written out (a job on a catalog took them from the
 * catalog's schema, `catalogSchema`), and `async_mode` true.
 */
export function enrichmentRecipe(config: EnrichJobConfig, catalogSchema: { properties?: Record<string, JsonSchemaProperty> } | null): EnrichJobConfig {
  const recipe: EnrichJobConfig = { ...config };
  if (!(recipe.output_schema as OutputField[] | undefined)?.length && catalogSchema) recipe.output_schema = fieldsFromCatalogSchema(catalogSchema);
  for (const key of NOT_RECIPE_KEYS) delete recipe[key];
  recipe.async_mode = true;
  return recipe;
}

/**
 * Resume (`source_activity_id`): all stored items of the earlier job with its saved config; only
 * `async_mode` and `webhook_url` may be given. `max_rows` of the earlier job is dropped: a
 * resume processes every stored item (the "dry run, then the rest" flow).
 */
async function planResume(knex: Knex, scope: Scope, req: EnrichRequest, sourceId: string): Promise<JobPlan> {
  refuseKeys(req, RESUME_KEYS, 'A resumed job runs with the saved config of the earlier job: only async_mode and webhook_url may be given');
  const from = await loadSourceJob(knex, scope, sourceId, 'source_activity_id');
  const config: EnrichJobConfig = { ...from.config };
  for (const key of PER_REQUEST_KEYS) delete config[key];
  config.source_activity_id = from.id;
  config.async_mode = req.async_mode ?? false;
  if (req.webhook_url !== undefined) config.webhook_url = req.webhook_url;
  return { config, items: { kind: 'resume', from }, catalogId: from.catalog_id };
}

/**
 * Re-extraction (`reextract_from_activity_id`, docs/api-enrichment.md "Extra request fields"): the earlier job's rows and
 * stored evidence with its config, overridden by extraction-level fields only (prompt,
 * output_schema, feedback, source_row_indices, …); research fields are refused since nothing is
 * searched or fetched.
 */
async function planReextract(knex: Knex, scope: Scope, req: EnrichRequest, sourceId: string): Promise<JobPlan> {
  refuseKeys(req, REEXTRACT_KEYS, 'Re-extraction reuses the stored research of the earlier job: this field cannot change');
  const from = await loadSourceJob(knex, scope, sourceId, 'reextract_from_activity_id');
  const details: ValidationDetail[] = [];
  const indices = req.source_row_indices === undefined ? null : [...new Set(req.source_row_indices as number[])].sort((a, b) => a - b);
  (req.source_row_indices ?? []).forEach((n: number, i: number) => {
    if (n >= from.total_items)
      details.push({
        loc: ['body', 'source_row_indices', i],
        msg: `Row ${n} does not exist among the ${from.total_items} processed rows of the earlier job`,
        type: 'value_error',
      });
  });
  for (const key of Object.keys(req.item_feedback ?? {})) {
    if (!/^\d+$/.test(key) || Number(key) >= from.total_items)
      details.push({ loc: ['body', 'item_feedback', key], msg: 'Keys are row indexes of the earlier job (as strings)', type: 'value_error' });
  }
  if (req.output_schema !== undefined) {
    if (req.output_schema.length === 0) details.push({ loc: ['body', 'output_schema'], msg: 'output_schema needs at least one field', type: 'value_error' });
    checkFields(req.output_schema, ['body', 'output_schema'], details);
  }
  if (details.length) throw new ValidationError(details);
  const config: EnrichJobConfig = { ...from.config };
  for (const key of PER_REQUEST_KEYS) delete config[key];
  delete config.capture_source_artifacts; // nothing is fetched
  assignDefined(config, normalizeClientShapes(req));
  config.async_mode = req.async_mode ?? false;
  config.reextract_from_activity_id = from.id;
  config.recorded_noops = recordedNoops(config, false);
  return { config, items: { kind: 'reextract', from, indices }, catalogId: from.catalog_id };
}
