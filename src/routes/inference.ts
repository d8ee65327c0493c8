import type { ResolvedAppDeps } from '../deps';
import { ValidationError } from '../lib/errors';
import { readFileForm } from '../middleware/file-form';
import { DEFAULT_UPLOAD_LIMITS } from '../middleware/upload';
import { presentEnrichmentInference, presentSchemaInference } from '../presenters/inference';
import { inferEnrichmentBody, inferEnrichmentResponse, inferSchemaFields, inferSchemaMultipart, inferSchemaResponse } from '../schemas/inference';
import { inferFromItems, inferSchemaFromFile } from '../services/sheets/infer';
import { inferenceLlm } from '../services/sheets/llm';
import { googleTaxonomyCache } from '../services/sheets/taxonomy';
import { defineRoute, RouteDef } from './registry';

/** Form fields are validated with query coercion ("true" → true, "20" → 20); their 422 locs say `body`. */
function asBody(err: unknown): unknown {
  return err instanceof ValidationError
    ? new ValidationError(err.details.map((d) => (d.loc[0] === 'query' ? { ...d, loc: ['body', ...d.loc.slice(1)] } : d)))
    : err;
}

/**
 * Inference routes (docs/api-enrichment.md "Enrichment jobs"): schema, taxonomy and enrichment
 * fields from a spreadsheet or from items. The Google product taxonomy is read once per app.
 */
export function inferenceRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['inference'];
  const google = googleTaxonomyCache(deps.config.googleTaxonomyFile ?? null);
  // One LLM client per app (its connections are reused); null without OPENAI_BASE_URL.
  const llm = inferenceLlm(deps.config.llm);
  const maxFileBytes = (deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS).fileBytes;
  return [
    defineRoute({
      method: 'post',
      path: '/public/infer-schema',
      tags,
      summary: 'Infer a catalog schema, enrichment fields and a taxonomy from a CSV or XLSX file (multipart)',
      multipart: inferSchemaMultipart,
      response: inferSchemaResponse,
      handler: async ({ ctx, validator }) => {
        if (!ctx.is('multipart/form-data')) throw ValidationError.at(['body', 'file'], 'Send multipart/form-data with a `file`', 'missing');
        const form = await readFileForm(ctx, deps.config.dataDir, 'file', ['prompt', 'generate_taxonomy', 'max_sample_rows'], maxFileBytes);
        try {
          let fields;
          try {
            fields = validator.validate(inferSchemaFields, form.fields, 'query');
          } catch (err) {
            throw asBody(err);
          }
          const result = await inferSchemaFromFile(
            { path: form.file.path, name: form.file.originalname },
            { maxSampleRows: fields.max_sample_rows, prompt: fields.prompt, generateTaxonomy: fields.generate_taxonomy, google, llm },
          );
          return presentSchemaInference(form.file.originalname, result, fields.generate_taxonomy);
        } finally {
          await form.cleanup();
        }
      },
    }),
    defineRoute({
      method: 'post',
      path: '/public/infer-enrichment',
      tags,
      summary: 'Infer a catalog schema, a taxonomy and enrichment fields from items',
      body: inferEnrichmentBody,
      response: inferEnrichmentResponse,
      handler: async ({ body }) => presentEnrichmentInference(await inferFromItems(body.items, { maxSampleRows: 20, prompt: body.prompt, google, llm })),
    }),
  ];
}
