/**
 * The `catalog_*` tools (docs/tool-server-design.md "How the local tools behave"): thin,
 * typed wrappers over the public API, plus audit (docs/tool-server-design.md "Audit and clear" audit) and clear (docs/tool-server-design.md "Audit and clear"
 * clear, restricted to activities the tool server created; reject and cancel, never approve).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { pool } from '../paginate';
import { createTransform } from '../stage';
import { organizationId, run, ToolContext } from './common';

const catalogId = z.string().min(1).describe('Catalog id');
const activityId = z.string().min(1).describe('Review activity id');

/** Activity as `GET /activities/{id}` answers it (the fields read here). */
interface ActivityDoc {
  id: string;
  catalog_id: string | null;
  type: string;
  status: string;
  staged_count: number;
  metadata?: { source?: string };
}

/** Registers the catalog read tools: list, get, schema, taxonomy, items query, item get, snapshots. */
function registerCatalogReads(server: McpServer, { api }: ToolContext): void {
  server.registerTool(
    'catalog_list',
    {
      description: "List the organization's catalogs (id, name, item_count, schema version), paginated.",
      inputSchema: { limit: z.number().int().min(1).max(100).default(50), offset: z.number().int().min(0).default(0), organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/public/catalogs', { query: { limit: a.limit, offset: a.offset }, organizationId: a.organization_id })),
  );
  server.registerTool(
    'catalog_get',
    {
      description: 'Get one catalog with its settings (strict_mode, variant_mode, unique_id_field) and current schema.',
      inputSchema: { catalog_id: catalogId, organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/public/catalogs/{catalog_id}', { path: { catalog_id: a.catalog_id }, organizationId: a.organization_id })),
  );
  server.registerTool(
    'catalog_schema_get',
    {
      description: "Get a catalog's JSON schema (current version, or an older `version`) with field workflow info.",
      inputSchema: {
        catalog_id: catalogId,
        version: z.string().optional().describe('Schema version, e.g. 1.2.0; default current'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/schema', {
          path: { catalog_id: a.catalog_id },
          query: { version: a.version },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_taxonomy_get',
    {
      description: "Get a catalog's taxonomy (nodes with level, path, inherited attributes), or null.",
      inputSchema: { catalog_id: catalogId, organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/public/catalogs/{catalog_id}/taxonomy', { path: { catalog_id: a.catalog_id }, organizationId: a.organization_id })),
  );
  server.registerTool(
    'catalog_items_query',
    {
      description: 'Query catalog items with search, sort and paging (offset or cursor); for full exports use execution_catalog_snapshot_pull.',
      inputSchema: {
        catalog_id: catalogId,
        search: z.string().max(500).optional().describe('Case-insensitive search over the items’ text values'),
        sort: z.string().max(210).optional().describe('`field:asc` or `field:desc` (data field, created_at or updated_at)'),
        limit: z.number().int().min(1).max(1000).default(50),
        offset: z.number().int().min(0).default(0),
        cursor: z.string().optional().describe('next_cursor of the previous page (instead of offset)'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/items', {
          path: { catalog_id: a.catalog_id },
          query: { search: a.search, sort: a.sort, limit: a.limit, offset: a.cursor ? undefined : a.offset, cursor: a.cursor },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_item_get',
    {
      description: 'Get one item by database id: its full-fidelity raw row (id, entity_type, parent_id, current_version, data).',
      inputSchema: { catalog_id: catalogId, item_id: z.string().min(1).describe('Item database id (__catalog_item_id)'), organization_id: organizationId },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/raw-items/{item_id}', {
          path: { catalog_id: a.catalog_id, item_id: a.item_id },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_snapshot_list',
    {
      description: "List a catalog's snapshots (manual, safety, pre_apply), newest first.",
      inputSchema: {
        catalog_id: catalogId,
        snapshot_type: z.enum(['manual', 'safety', 'pre_apply']).optional(),
        limit: z.number().int().min(1).max(100).default(50),
        offset: z.number().int().min(0).default(0),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/snapshots', {
          path: { catalog_id: a.catalog_id },
          query: { snapshot_type: a.snapshot_type, limit: a.limit, offset: a.offset },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_snapshot_create',
    {
      description: 'Take a manual snapshot of a catalog (items, schema version, taxonomy, context) before a risky change.',
      inputSchema: { catalog_id: catalogId, reason: z.string().max(2000).optional(), organization_id: organizationId },
    },
    (a) =>
      run(() =>
        api.call('POST', '/api/public/catalogs/{catalog_id}/snapshots', {
          path: { catalog_id: a.catalog_id },
          body: { reason: a.reason },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_snapshot_restore',
    {
      description: 'Restore a catalog from a snapshot (a safety snapshot is taken first); returns the safety snapshot id.',
      inputSchema: { catalog_id: catalogId, snapshot_id: z.string().min(1), organization_id: organizationId },
    },
    (a) =>
      run(() =>
        api.call('POST', '/api/public/catalogs/{catalog_id}/snapshots/{snapshot_id}/restore', {
          path: { catalog_id: a.catalog_id, snapshot_id: a.snapshot_id },
          organizationId: a.organization_id,
        }),
      ),
  );
}

/** Registers the activity tools: list, get, staged changes, create transform, audit, clear. */
function registerActivityTools(server: McpServer, ctx: ToolContext): void {
  const { api, config } = ctx;
  server.registerTool(
    'catalog_activity_list',
    {
      description: "List a catalog's review activities (enrichment jobs and transforms) with status and staged counts.",
      inputSchema: {
        catalog_id: catalogId,
        status: z.enum(['created', 'running', 'pending_review', 'completed', 'cancelled', 'failed']).optional(),
        type: z.enum(['enrichment', 'custom_transform', 'smart_import']).optional(),
        limit: z.number().int().min(1).max(1000).default(50),
        offset: z.number().int().min(0).default(0),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/activities', {
          path: { catalog_id: a.catalog_id },
          query: { status: a.status, type: a.type, limit: a.limit, offset: a.offset },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_activity_get',
    {
      description: 'Get one review activity: status, metadata, staged count, apply progress and result.',
      inputSchema: { activity_id: activityId, organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/activities/{activity_id}', { path: { activity_id: a.activity_id }, organizationId: a.organization_id })),
  );
  server.registerTool(
    'catalog_activity_staged_changes',
    {
      description: "Page through an activity's staged changes (before/after data, status), filtered by status, field or search.",
      inputSchema: {
        activity_id: activityId,
        page: z.number().int().min(1).default(1),
        page_size: z.number().int().min(1).max(1000).default(50),
        status: z.enum(['draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error', 'conflict']).optional(),
        field: z.string().optional().describe('Only changes that change this field'),
        search_query: z.string().max(500).optional(),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/activities/{activity_id}/staged-changes', {
          path: { activity_id: a.activity_id },
          // The tool server's user staged these (its enrichment stages vendor drafts): the API lists drafts like any change.
          query: { page: a.page, page_size: a.page_size, status: a.status, field: a.field, search_query: a.search_query },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_activity_create_transform',
    {
      description: 'Create one review activity from staged changes (validated first; appended in batches); returns review_url. Never applies.',
      inputSchema: {
        catalog_id: catalogId,
        activity_message: z.string().min(1).max(10000).describe('What the transform does, shown to the reviewer'),
        staged_changes_path: z.string().optional().describe('staged_changes.jsonl from execution_local_diff_compute (workspace path)'),
        staged_changes: z.array(z.record(z.string(), z.unknown())).optional().describe('Changes inline instead of a file'),
        diff_summary: z.record(z.string(), z.unknown()).optional().describe('diff_summary of the diff: counts must match the changes'),
        script_path: z.string().optional().describe('The transform script, stored with its sha256 for provenance'),
        allow_row_deletes: z.boolean().default(true),
        base_snapshot_id: z.string().optional(),
        schema_changes: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('Schema changes applied with the changes ({fields_to_add, …}: a new schema version)'),
        taxonomy_changes: z.record(z.string(), z.unknown()).optional().describe('Taxonomy changes applied with the changes'),
        attachments: z.array(z.record(z.string(), z.unknown())).optional().describe('Kept under input_data.activity_context.attachments'),
        session_context: z.record(z.string(), z.unknown()).optional().describe('The agent session, kept under input_data.activity_context'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        createTransform(
          api,
          { batchSize: config.stageBatchSize, retries: config.stageRetries, retryBaseMs: config.retryBaseMs, workspace: config.workspace },
          {
            catalog_id: a.catalog_id,
            activity_message: a.activity_message,
            staged_changes_path: a.staged_changes_path,
            staged_changes: a.staged_changes,
            diff_summary: a.diff_summary,
            script_path: a.script_path,
            rules: { allow_row_deletes: a.allow_row_deletes, max_change_ratio_warning: 0.2 },
            base_snapshot_id: a.base_snapshot_id,
            schema_changes: a.schema_changes,
            taxonomy_changes: a.taxonomy_changes,
            attachments: a.attachments,
            session_context: a.session_context,
            organization_id: a.organization_id,
          },
        ),
      ),
  );
  server.registerTool(
    'catalog_activity_audit',
    {
      description: 'Audit what activities changed: per activity counts by status and by field, plus totals by status and type.',
      inputSchema: {
        catalog_id: catalogId,
        activity_ids: z.array(z.string()).optional().describe('Default: the catalog’s activities (filtered by status/type)'),
        status: z.enum(['created', 'running', 'pending_review', 'completed', 'cancelled', 'failed']).optional(),
        type: z.enum(['enrichment', 'custom_transform', 'smart_import']).optional(),
        limit: z.number().int().min(1).max(200).default(20),
        organization_id: organizationId,
      },
    },
    (a) => run(() => audit(ctx, a)),
  );
  server.registerTool(
    'catalog_activity_clear',
    {
      description: 'Reject all staged changes and cancel activities this tool server created (default: pending_review ones). Never approves.',
      inputSchema: {
        catalog_id: catalogId,
        activity_ids: z.array(z.string()).optional(),
        status: z.enum(['created', 'pending_review']).default('pending_review'),
        rejection_reason: z.string().max(2000).default('Superseded by a newer staged update'),
        reject: z.boolean().default(true),
        cancel: z.boolean().default(true),
        organization_id: organizationId,
      },
    },
    (a) => run(() => clear(ctx, a)),
  );
}

/** Activity ids given, or the catalog's listing filtered by status/type (docs/tool-server-design.md "Audit and clear"). */
async function targets(
  ctx: ToolContext,
  a: { catalog_id: string; activity_ids?: string[]; status?: string; type?: string; limit: number; organization_id?: string },
) {
  if (a.activity_ids?.length) return a.activity_ids;
  const list = await ctx.api.call<{ activities: Array<{ id: string }> }>('GET', '/api/public/catalogs/{catalog_id}/activities', {
    path: { catalog_id: a.catalog_id },
    query: { status: a.status, type: a.type, limit: a.limit },
    organizationId: a.organization_id,
  });
  return list.activities.map((x) => x.id);
}

/** The audit (docs/tool-server-design.md "Audit and clear"): each activity with its summary (concurrency 8); failures stored as `{error}`. */
async function audit(
  ctx: ToolContext,
  a: { catalog_id: string; activity_ids?: string[]; status?: string; type?: string; limit: number; organization_id?: string },
) {
  const ids = await targets(ctx, a);
  const org = { organizationId: a.organization_id };
  const results = await pool(
    ids.map((id) => async () => {
      try {
        const [act, summary] = await Promise.all([
          ctx.api.call<ActivityDoc>('GET', '/api/activities/{activity_id}', { path: { activity_id: id }, ...org }),
          ctx.api.call<{ total_changes: number; by_status: Record<string, number>; field_stats: Record<string, unknown> }>(
            'GET',
            '/api/activities/{activity_id}/staged-changes/summary',
            { path: { activity_id: id }, ...org },
          ),
        ]);
        return {
          activity_id: id,
          type: act.type,
          status: act.status,
          total_changes: summary.total_changes,
          by_status: summary.by_status,
          by_field: summary.field_stats,
        };
      } catch (err) {
        return { activity_id: id, error: err instanceof Error ? err.message : String(err) };
      }
    }),
    8,
  );
  const statusCounts: Record<string, number> = {};
  const typeCounts: Record<string, number> = {};
  for (const r of results) {
    const s = ('status' in r && r.status) || 'unknown';
    const t = ('type' in r && r.type) || 'unknown';
    statusCounts[s] = (statusCounts[s] ?? 0) + 1;
    typeCounts[t] = (typeCounts[t] ?? 0) + 1;
  }
  return { catalog_id: a.catalog_id, activity_count: results.length, status_counts: statusCounts, type_counts: typeCounts, activities: results };
}

/**
 * The clear (docs/tool-server-design.md "Audit and clear") for activities the tool server created (`metadata.source` =
 * `mcp_custom_transform`): reject_all, then cancel. Another catalog's or another creator's activity is skipped.
 */
async function clear(
  ctx: ToolContext,
  a: { catalog_id: string; activity_ids?: string[]; status: string; rejection_reason: string; reject: boolean; cancel: boolean; organization_id?: string },
) {
  const ids = await targets(ctx, { ...a, type: 'custom_transform', limit: 100 });
  const org = { organizationId: a.organization_id };
  const results: Array<Record<string, unknown>> = [];
  for (const id of ids) {
    try {
      const act = await ctx.api.call<ActivityDoc>('GET', '/api/activities/{activity_id}', { path: { activity_id: id }, ...org });
      if (act.catalog_id !== a.catalog_id) {
        results.push({ activity_id: id, skipped: 'catalog_mismatch' });
        continue;
      }
      if (act.metadata?.source !== 'mcp_custom_transform') {
        results.push({ activity_id: id, skipped: 'not_created_by_tool_server' });
        continue;
      }
      const out: Record<string, unknown> = { activity_id: id };
      if (a.reject)
        out.rejected = (
          await ctx.api.call<{ updated: number }>('POST', '/api/activities/{activity_id}/staged-changes/bulk-review', {
            path: { activity_id: id },
            ...org,
            body: { action: 'reject_all', rejection_reason: a.rejection_reason },
          })
        ).updated;
      if (a.cancel)
        out.status = (await ctx.api.call<ActivityDoc>('POST', '/api/activities/{activity_id}/cancel', { path: { activity_id: id }, ...org })).status;
      out.success = true;
      results.push(out);
    } catch (err) {
      results.push({ activity_id: id, success: false, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { selected_activity_count: ids.length, success_count: results.filter((r) => r.success === true).length, results };
}

/** Registers every `catalog_*` tool on `server`. */
export function registerCatalogTools(server: McpServer, ctx: ToolContext): void {
  registerCatalogReads(server, ctx);
  registerActivityTools(server, ctx);
}
