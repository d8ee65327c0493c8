/**
 * Staging (docs/tool-server-design.md "Staging"): `catalog_activity_create_transform` (one review activity from
 * staged changes: shell → appends in batches → pending-review) and `execution_catalog_stage_dataset`
 * on top of it (diff → validate → refuse on errors → create transform). Appends carry a `batch_key`
 * (docs/api-review.md "Appending staged changes"), so a retried batch is never appended twice. The tool
 * server never approves or applies (docs/tool-server-design.md "How the local tools behave").
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, ApiError, backoffMs, sleep } from './api-client';
import { computeDiffKeeping, DiffInput, DiffResult } from './diff';
import { readObjects } from './table';
import { validateBundle, ValidationReport, ValidationRules } from './validate';
import { guardPath } from './workspace';
import { sha256Hex } from './values';

/** Staging knobs (`CATALOG_MCP_STAGE_BATCH_SIZE`, `CATALOG_MCP_STAGE_RETRIES`). */
export interface StageSettings {
  batchSize: number;
  retries: number;
  retryBaseMs: number;
  /** The workspace root of the path guard. */
  workspace: string;
}

/** Inputs of create_transform (docs/tool-server-design.md "How the local tools behave" custom-transform body, docs/tool-server-design.md "Staging"). */
export interface CreateTransformInput {
  catalog_id: string;
  activity_message: string;
  staged_changes_path?: string | null;
  staged_changes?: unknown[] | null;
  diff_summary?: Record<string, unknown> | null;
  script_path?: string | null;
  validation_report?: ValidationReport | null;
  rules: ValidationRules;
  base_snapshot_id?: string | null;
  activity_context?: Record<string, unknown> | null;
  /** Schema changes the transform needs (applied with the changes: a new schema version). */
  schema_changes?: Record<string, unknown> | null;
  /** Taxonomy changes the transform needs. */
  taxonomy_changes?: Record<string, unknown> | null;
  /** Attachments, stored under `input_data.activity_context.attachments`. */
  attachments?: Array<Record<string, unknown>> | null;
  /** The agent session's context, stored under `input_data.activity_context.session_context`. */
  session_context?: Record<string, unknown> | null;
  organization_id?: string | null;
  /**
   * Set only by stage_dataset, which has just validated these very changes with the dataset files:
   * the changes are not validated a second time (upstream fetches and checks twice, docs/tool-server-design.md "Staging"; the result is the same, and at 100,000 changes it costs seconds).
   */
  prevalidated?: ValidationReport;
}

/** The finalize answer (docs/tool-server-design.md "Staging" and docs/tool-server-design.md "Conformance"). */
export interface StageOutput {
  activity_id: string | null;
  status: string;
  staged_count: number;
  review_url: string | null;
  batches: number;
  validation: { valid: boolean; errors: number; warnings: number };
}

/** Staging refused because validation found errors (docs/tool-server-design.md "Staging"). */
export class ValidationFailedError extends Error {
  constructor(readonly report: ValidationReport) {
    super(
      `Bundle validation failed: ${report.errors
        .slice(0, 5)
        .map((e) => `${e.code}: ${e.message}`)
        .join('; ')}${report.errors.length > 5 ? ` (and ${report.errors.length - 5} more)` : ''}`,
    );
    this.name = 'ValidationFailedError';
  }
}

/** Whether a failed call may succeed when repeated: network errors, timeouts, 5xx, 408, 429. */
function retryable(err: unknown): boolean {
  return err instanceof ApiError ? err.retryable : true;
}

/**
 * Runs `fn` up to `attempts` times with backoff min(0.4·2^attempt, 2) s (docs/tool-server-design.md "Staging"),
 * retrying only failures that may pass when repeated (a 4xx other than 408/429 will not).
 * @throws the last failure
 */
export async function withRetries<T>(attempts: number, baseMs: number, fn: () => Promise<T>): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt++) {
    if (attempt > 0) await sleep(backoffMs(attempt - 1, baseMs));
    try {
      return await fn();
    } catch (err) {
      last = err;
      if (!retryable(err)) break;
    }
  }
  throw last;
}

/** The validation report as stored in the activity's metadata: counts, the first 50 issues and computed values. */
function reportForMetadata(r: ValidationReport): Record<string, unknown> {
  return { valid: r.valid, error_count: r.errors.length, errors: r.errors.slice(0, 50), warnings: r.warnings.slice(0, 50), computed: r.computed };
}

/**
 * The later release's `input_data` of the shell (docs/tool-server-design.md "Staging"): the description,
 * the schema and taxonomy changes when given, and `activity_context` merging the caller's context,
 * `attachments`, `session_context` and `base_snapshot_id` (absent when all are).
 */
export function inputData(input: CreateTransformInput): Record<string, unknown> {
  const context: Record<string, unknown> = {
    ...(input.activity_context ?? {}),
    ...(input.attachments ? { attachments: input.attachments } : {}),
    ...(input.session_context ? { session_context: input.session_context } : {}),
    ...(input.base_snapshot_id ? { base_snapshot_id: input.base_snapshot_id } : {}),
  };
  return {
    description: input.activity_message,
    ...(input.schema_changes ? { schema_changes: input.schema_changes } : {}),
    ...(input.taxonomy_changes ? { taxonomy_changes: input.taxonomy_changes } : {}),
    ...(Object.keys(context).length ? { activity_context: context } : {}),
  };
}

/**
 * create_transform (docs/tool-server-design.md "Staging"): validates the changes (refusing on errors), POSTs the
 * activity shell, appends the changes in batches of `settings.batchSize` (each with its own
 * `batch_key`, up to `settings.retries` attempts), then finalizes with pending-review.
 * @returns the activity id, status, staged count and review URL
 * @throws ValidationFailedError when validation finds errors; ApiError when a call fails for good
 */
export async function createTransform(api: ApiClient, settings: StageSettings, input: CreateTransformInput): Promise<StageOutput> {
  const changes =
    input.staged_changes ?? (input.staged_changes_path ? readObjects(guardPath(settings.workspace, input.staged_changes_path, { kind: 'file' })) : []);
  const report =
    input.prevalidated ??
    (await validateBundle(api, settings.workspace, {
      catalog_id: input.catalog_id,
      staged_changes: changes,
      diff_summary: input.diff_summary,
      script_path: input.script_path,
      rules: input.rules,
      organization_id: input.organization_id,
    }));
  if (!report.valid) throw new ValidationFailedError(report);
  const validation = input.validation_report ?? report;
  const org = input.organization_id;
  let script: Record<string, unknown> | undefined;
  if (input.script_path) {
    const file = guardPath(settings.workspace, input.script_path, { kind: 'file' });
    const content = fs.readFileSync(file, 'utf8');
    script = { filename: path.basename(file), content, sha256: sha256Hex(content) };
  }
  const shell = await withRetries(settings.retries, settings.retryBaseMs, () =>
    api.call<{ activity_id: string }>('POST', '/api/public/catalogs/{catalog_id}/activities', {
      path: { catalog_id: input.catalog_id },
      organizationId: org,
      body: {
        type: 'custom_transform',
        description: input.activity_message,
        status: 'created',
        staged_changes: [],
        metadata: {
          source: 'mcp_custom_transform',
          ...(script ? { script } : {}),
          ...(input.diff_summary ? { diff_summary: input.diff_summary } : {}),
          validation_report: reportForMetadata(validation),
          ...(input.base_snapshot_id ? { base_snapshot_id: input.base_snapshot_id } : {}),
        },
        input_data: inputData(input),
      },
    }),
  );
  const activityId = shell.activity_id;
  let appended = 0;
  let batches = 0;
  for (let i = 0; i < changes.length; i += settings.batchSize) {
    const chunk = changes.slice(i, i + settings.batchSize);
    // Same batch, same key: a retry after a lost answer is a no-op on the service.
    const batchKey = `mcp:${i / settings.batchSize}:${sha256Hex(JSON.stringify(chunk)).slice(0, 32)}`;
    const res = await withRetries(settings.retries, settings.retryBaseMs, () =>
      api.call<{ total_staged_changes?: number }>('POST', '/api/public/activities/{activity_id}/staged-changes/append', {
        path: { activity_id: activityId },
        organizationId: org,
        body: { staged_changes: chunk, batch_key: batchKey },
        timeoutMs: 120_000,
      }),
    );
    batches++;
    appended = Math.max(appended + chunk.length, Number(res.total_staged_changes ?? 0));
  }
  const done = await withRetries(settings.retries, settings.retryBaseMs, () =>
    api.call<{ activity_id: string; status: string; staged_count?: number; review_url: string }>(
      'POST',
      '/api/public/activities/{activity_id}/pending-review',
      { path: { activity_id: activityId }, organizationId: org, body: { message: input.activity_message, output: input.diff_summary ?? null } },
    ),
  );
  return {
    activity_id: done.activity_id,
    status: done.status,
    staged_count: done.staged_count ?? appended,
    review_url: done.review_url,
    batches,
    validation: { valid: report.valid, errors: report.errors.length, warnings: report.warnings.length },
  };
}

/** Inputs of stage_dataset: the diff's, plus the message, rules and `validate_only` (docs/tool-server-design.md "Staging"). */
export interface StageDatasetInput extends Omit<DiffInput, 'before_path' | 'after_path'> {
  catalog_id: string;
  before_path: string;
  after_path: string;
  activity_message: string;
  script_path?: string | null;
  rules: ValidationRules;
  validate_only: boolean;
  organization_id?: string | null;
}

/** What stage_dataset returns: the staging output, the diff summary and the validation report's counts. */
export interface StageDatasetOutput extends StageOutput {
  diff_summary: DiffResult['diff_summary'];
  staged_changes_path: string;
  warnings: ValidationReport['warnings'];
  /** Time of the phases (ms): diff, validation, upload (shell, appends, pending-review). */
  timings_ms: { diff: number; validate: number; upload: number };
}

/**
 * stage_dataset (docs/tool-server-design.md "Staging"): diff → validate (dataset files, staged file, diff summary)
 * → refuse on errors → (unless `validate_only`) create_transform with the manifest of the before
 * file as `activity_context.source_snapshot`.
 * @throws ValidationFailedError ("Bundle validation failed: …"); DiffError; ApiError
 */
export async function stageDataset(api: ApiClient, settings: StageSettings, input: StageDatasetInput): Promise<StageDatasetOutput> {
  const beforeAbs = guardPath(settings.workspace, input.before_path, { kind: 'file' });
  const afterAbs = guardPath(settings.workspace, input.after_path, { kind: 'file' });
  const t0 = performance.now();
  const { result: diff, before, after, staged } = await computeDiffKeeping({ ...input, before_path: beforeAbs, after_path: afterAbs });
  const t1 = performance.now();
  const report = await validateBundle(api, settings.workspace, {
    catalog_id: input.catalog_id,
    before_path: beforeAbs,
    after_path: afterAbs,
    staged_changes_path: diff.staged_changes_path,
    diff_summary: { ...diff.diff_summary },
    script_path: input.script_path,
    rules: input.rules,
    organization_id: input.organization_id,
    loaded: { before, after, staged },
  });
  if (!report.valid) throw new ValidationFailedError(report);
  const t2 = performance.now();
  const timings = { diff: Math.round(t1 - t0), validate: Math.round(t2 - t1), upload: 0 };
  const summary = { diff_summary: diff.diff_summary, staged_changes_path: diff.staged_changes_path, warnings: report.warnings, timings_ms: timings };
  if (input.validate_only)
    return {
      activity_id: null,
      status: 'validated',
      staged_count: diff.staged_count,
      review_url: null,
      batches: 0,
      validation: { valid: true, errors: 0, warnings: report.warnings.length },
      ...summary,
    };
  const manifest = sourceSnapshot(beforeAbs);
  const out = await createTransform(api, settings, {
    catalog_id: input.catalog_id,
    activity_message: input.activity_message,
    staged_changes_path: diff.staged_changes_path,
    diff_summary: { ...diff.diff_summary },
    script_path: input.script_path,
    validation_report: report,
    rules: input.rules,
    activity_context: { source_snapshot: manifest },
    organization_id: input.organization_id,
    staged_changes: staged,
    prevalidated: report,
  });
  timings.upload = Math.round(performance.now() - t2);
  return { ...out, ...summary };
}

/** The later release's `activity_context.source_snapshot` (docs/tool-server-design.md "Staging"): the before file's manifest, or just its path. */
function sourceSnapshot(beforeAbs: string): Record<string, unknown> {
  const dir = path.dirname(beforeAbs);
  const stem = path.basename(beforeAbs, path.extname(beforeAbs));
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, `${stem}_manifest.json`), 'utf8')) as Record<string, unknown>;
    const keys = [
      'catalog_id',
      'snapshot_path',
      'schema_path',
      'rows_hash',
      'schema_hash',
      'source_hash',
      'rows',
      'columns',
      'created_at',
      'cache_key',
      'base_snapshot_id',
    ];
    return Object.fromEntries(keys.filter((k) => k in m).map((k) => [k, m[k]]));
  } catch {
    return { snapshot_path: beforeAbs };
  }
}
