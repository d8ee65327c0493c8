/**
 * The `execution_*` tools (docs/tool-server-design.md "Pull"): pull a snapshot, diff
 * locally, validate a bundle, stage one review activity. Every path goes through the workspace
 * guard (docs/tool-server-design.md "How the local tools behave").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { computeDiff } from '../diff';
import { pullSnapshot } from '../pull';
import { stageDataset } from '../stage';
import { validateBundle } from '../validate';
import { guardPath } from '../workspace';
import { organizationId, run, ToolContext } from './common';

const keyInputs = {
  key_field: z.string().min(1).default('__catalog_item_id').describe('Identity column; default the pulled database id'),
  deterministic_key_fields: z.array(z.string()).default([]).describe('Fallback identity when a row has no key: hash of these fields (e.g. ["sku"])'),
  allow_row_index_fallback: z.boolean().default(true).describe('Last resort: match rows by position'),
  schema_path: z.string().optional().describe('Catalog schema file for column types; default <before stem>_schema.json'),
};

const rules = {
  allow_row_deletes: z.boolean().default(true).describe('Whether deleting catalog rows is allowed (default true, as upstream)'),
  max_change_ratio_warning: z.number().min(0).default(0.2).describe('Warn when more than this share of base rows changes'),
};

/** Registers every `execution_*` tool on `server`. */
export function registerExecutionTools(server: McpServer, { api, config }: ToolContext): void {
  const ws = config.workspace;
  const stageSettings = { batchSize: config.stageBatchSize, retries: config.stageRetries, retryBaseMs: config.retryBaseMs, workspace: ws };

  server.registerTool(
    'execution_catalog_snapshot_pull',
    {
      description: 'Pull every row of a catalog (raw-items, verified against total) to Parquet, JSONL and CSV with schema, taxonomy and a hashed manifest.',
      inputSchema: {
        catalog_id: z.string().min(1),
        output_dir: z.string().default('./snapshots').describe('Workspace directory for the files'),
        format: z
          .enum(['jsonl', 'csv', 'parquet'])
          .default('parquet')
          .describe('Which file snapshot_path names (default parquet, as upstream; JSONL and CSV are always written, Parquet when asked for)'),
        sample_size: z.number().int().min(1).max(5000).nullable().default(null).describe('Pull only the first N rows (null = all)'),
        page_size: z.number().int().min(1).max(5000).default(400).describe('Rows per request (default 400, as upstream; larger pulls faster)'),
        max_concurrency: z.number().int().min(1).max(64).optional().describe('Pages in flight; default CATALOG_MCP_PULL_MAX_CONCURRENCY (8)'),
        prefer_raw: z.boolean().default(true),
        use_cache: z.boolean().default(false).describe('Reuse the files of an earlier pull with the same cache key (no HTTP call)'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        pullSnapshot(
          api,
          { ...a, max_concurrency: a.max_concurrency ?? config.pullMaxConcurrency, organization_id: a.organization_id },
          guardPath(ws, a.output_dir),
          config.pullPageTimeoutMs,
        ),
      ),
  );

  server.registerTool(
    'execution_local_diff_compute',
    {
      description: 'Diff a transformed file against the pulled snapshot; writes staged_changes.jsonl and diff_details.json next to the after file.',
      inputSchema: { before_path: z.string().min(1), after_path: z.string().min(1), ...keyInputs },
    },
    (a) =>
      run(async () =>
        computeDiff({
          ...a,
          before_path: guardPath(ws, a.before_path, { kind: 'file' }),
          after_path: guardPath(ws, a.after_path, { kind: 'file' }),
          schema_path: a.schema_path ? guardPath(ws, a.schema_path, { kind: 'file' }) : null,
        }),
      ),
  );

  server.registerTool(
    'execution_bundle_validate',
    {
      description: 'Validate staged changes against the catalog schema (Ajv), required fields, enums, keys, counts and deletes; lists every error.',
      inputSchema: {
        catalog_id: z.string().min(1),
        before_path: z.string().optional(),
        after_path: z.string().optional(),
        staged_changes_path: z.string().optional(),
        script_path: z.string().optional(),
        diff_summary: z.record(z.string(), z.unknown()).optional(),
        schema_changes: z.record(z.string(), z.unknown()).optional().describe('{fields_to_add: [{field_name, …}]}: columns declared as new'),
        ...rules,
        report_path: z.string().optional().describe('Also write the full report here (default: validation_report.json next to the staged changes)'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(async () => {
        const report = await validateBundle(api, ws, {
          ...a,
          rules: { allow_row_deletes: a.allow_row_deletes, max_change_ratio_warning: a.max_change_ratio_warning },
        });
        const target = a.report_path ?? (a.staged_changes_path ? path.join(path.dirname(a.staged_changes_path), 'validation_report.json') : null);
        if (!target) return report;
        const file = guardPath(ws, target);
        fs.writeFileSync(file, JSON.stringify(report, null, 2));
        const shown = 200;
        return { ...report, errors: report.errors.slice(0, shown), errors_total: report.errors.length, report_path: file };
      }),
  );

  server.registerTool(
    'execution_catalog_stage_dataset',
    {
      description: 'Diff, validate and stage one review activity from a transformed file (refuses when validation fails); returns review_url.',
      inputSchema: {
        catalog_id: z.string().min(1),
        before_path: z.string().min(1).describe('The pulled snapshot'),
        after_path: z.string().min(1).describe('The transformed file'),
        activity_message: z.string().min(1).max(10000).describe('What the transform does, shown to the reviewer'),
        ...keyInputs,
        script_path: z.string().optional(),
        ...rules,
        validate_only: z.boolean().default(false).describe('Diff and validate only; stage nothing'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        stageDataset(api, stageSettings, {
          ...a,
          rules: { allow_row_deletes: a.allow_row_deletes, max_change_ratio_warning: a.max_change_ratio_warning },
          schema_path: a.schema_path ? guardPath(ws, a.schema_path, { kind: 'file' }) : null,
        }),
      ),
  );
}
