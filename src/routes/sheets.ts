import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { ServiceUnavailableError, ValidationError } from '../lib/errors';
import { readFileForm } from '../middleware/file-form';
import { DEFAULT_UPLOAD_LIMITS } from '../middleware/upload';
import { importLinesCsv, presentImport, presentImportLine } from '../presenters/sheets';
import { catalogIdParams } from '../schemas/catalogs';
import { exportQuery, importFields, importLinesQuery, importMultipart, importParams, importResponse } from '../schemas/sheets';
import { exportCatalog } from '../services/sheets/export';
import { cancelImport, findImport, IMPORT_CANCEL_KEEPS, importLinePages, importLines, loadImport, stageImport } from '../services/sheets/import';
import { defineRoute, RouteDef } from './registry';

/** The `mapping` form field as a column → field object. @throws ValidationError (422) */
function parseMapping(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw ValidationError.at(['body', 'mapping'], 'mapping must be a JSON object of column → field', 'json_invalid');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.values(v).some((f) => typeof f !== 'string' || f.startsWith('__')))
    throw ValidationError.at(['body', 'mapping'], 'mapping must map column names to field names (strings, not starting with __)', 'type_error');
  return v as Record<string, string>;
}

/**
 * Spreadsheet routes of a catalog: import of a CSV/XLSX file (staged by the API,
 * written by a Temporal workflow, with a per-line report) and the whole catalog streamed out as
 * CSV or XLSX (the body is a stream the export service fills; the route only sets the headers).
 * Long on purpose: a route table, one entry per route.
 */
export function sheetRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const maxFileBytes = (deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS).fileBytes;
  return [
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/items/import',
      tags: ['items'],
      summary: 'Import a CSV or XLSX file into a catalog (a Temporal workflow; per-line status report)',
      params: catalogIdParams,
      multipart: importMultipart,
      response: importResponse,
      status: 202,
      handler: async ({ scope, params, ctx, validator, idempotentId }) => {
        if (!ctx.is('multipart/form-data')) throw ValidationError.at(['body', 'file'], 'Send multipart/form-data with a `file`', 'missing');
        const form = await readFileForm(ctx, deps.config.dataDir, 'file', ['mapping', 'dry_run', 'mode'], maxFileBytes);
        try {
          let fields;
          try {
            fields = validator.validate(importFields, form.fields, 'query');
          } catch (err) {
            throw err instanceof ValidationError ? new ValidationError(err.details.map((d) => ({ ...d, loc: ['body', ...d.loc.slice(1)] }))) : err;
          }
          if (!deps.jobRunner.startImport) throw new ServiceUnavailableError('Imports need the Temporal worker, which this deployment does not run');
          // A retry whose first attempt staged the import and died before its answer was stored
          // finds it (its id derives from the Idempotency-Key): started and answered, not staged again.
          const earlier = idempotentId ? await findImport(deps.knex, scope, params.catalog_id, idempotentId) : undefined;
          const imp =
            earlier ??
            (await stageImport(
              deps.knex,
              scope,
              params.catalog_id,
              { path: form.file.path, name: form.file.originalname },
              parseMapping(fields.mapping),
              { dry_run: fields.dry_run, mode: fields.mode },
              idempotentId,
            ));
          await deps.jobRunner.startImport({ id: imp.id, organization_id: imp.organization_id, catalog_id: imp.catalog_id, total_lines: imp.total_lines });
          ctx.status = 202;
          return presentImport(imp, deps.config.publicUrl);
        } finally {
          await form.cleanup();
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/items/import/:import_id',
      tags: ['items'],
      summary: 'Status and counters of an import',
      params: importParams,
      response: importResponse,
      handler: async ({ scope, params }) => presentImport(await loadImport(deps.knex, scope, params.catalog_id, params.import_id), deps.config.publicUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/items/import/:import_id/cancel',
      tags: ['items'],
      summary: `Cancel a running import. ${IMPORT_CANCEL_KEEPS} 409 when it already completed or failed.`,
      params: importParams,
      response: importResponse,
      handler: async ({ scope, params }) => presentImport(await cancelImport(deps, scope, params.catalog_id, params.import_id), deps.config.publicUrl),
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/items/import/:import_id/lines',
      tags: ['items'],
      summary: 'Per-line report of an import ({line, status: created|updated|failed, errors}) as JSON pages or CSV',
      params: importParams,
      query: importLinesQuery,
      handler: async ({ scope, params, query, ctx }) => {
        const imp = await loadImport(deps.knex, scope, params.catalog_id, params.import_id);
        if (query.format === 'json') {
          const lines = await importLines(deps.knex, imp.id, query.after_line, query.limit);
          return { lines: lines.map(presentImportLine), next_after_line: lines.length === query.limit ? lines[lines.length - 1].line : null };
        }
        // The whole report as CSV, page by page (bounded memory).
        const pages = importLinePages(deps.knex, imp.id, query.after_line);
        sendAttachment(ctx, 'text/csv; charset=utf-8', `import-${imp.id}-lines.csv`);
        ctx.body = Readable.from(
          (async function* () {
            let header = true;
            for await (const lines of pages) {
              yield importLinesCsv(lines, header);
              header = false;
            }
          })(),
        );
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/items/export',
      tags: ['items'],
      summary: 'Export every item of a catalog as CSV or XLSX (streamed; products before their variants; arrays and objects as JSON)',
      params: catalogIdParams,
      query: exportQuery,
      handler: async ({ scope, params, query, ctx }) => {
        const e = await exportCatalog(deps.knex, scope, params.catalog_id, query.format, { bom: query.bom });
        sendAttachment(ctx, e.contentType, e.fileName);
        ctx.body = e.body;
        return undefined;
      },
    }),
  ];
}

/**
 * Answers 200 with a file download of `contentType` named `fileName` (the caller sets the body;
 * `nosniff` is on every API answer already, src/middleware/api-headers.ts).
 */
function sendAttachment(ctx: Context, contentType: string, fileName: string): void {
  ctx.status = 200;
  ctx.type = contentType;
  ctx.set('Content-Disposition', `attachment; filename="${fileName}"`);
}
