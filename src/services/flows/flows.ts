/**
 * Stored flows (docs/api-review.md "Flows"; docs/api-review.md "Save as workflow"): saving a reviewed activity as a flow, listing and reading flows.
 *
 * A saved flow is an ordered list of nodes (src/models/flow.ts):
 * - a custom transform (its `script.content`, or `python_code`) → `input → custom_code → stage`;
 * - an enrichment job → `input → enrich (the job's recipe) → stage`, with a `custom_code` node
 *   before `enrich` when `python_code` is given.
 * The `stage` node stages into the activity's catalog, so a flow's output is reviewed and
 * applied like any other activity.
 */
import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { EnrichmentJob } from '../../models/enrichment-job';
import { Flow, FlowNode } from '../../models/flow';
import type { ReviewActivity } from '../../models/review-activity';
import { loadOwned } from '../access/ownership';
import { assertCapabilityOn, type Capability } from '../capabilities';
import type { Scope } from '../access/scope';
import { loadCatalogOwned } from '../catalog/catalogs';
import { getCurrentSchema } from '../catalog/schema/schema';
import { enrichmentRecipe } from '../enrichment/jobs/request';
import { loadReviewActivity } from '../review/staged-changes';

/** Default `timeout_seconds` of a saved custom_code node (s); the API allows 1–1800 (docs/api-review.md "Save as workflow"). */
export const DEFAULT_CODE_TIMEOUT_S = 300;

/** `workflow_url` of a flow (docs/api-review.md "Flows"): `{PUBLIC_URL}/dashboard/flows/{id}`. */
export function flowUrl(publicUrl: string, flowId: string): string {
  return `${publicUrl}/dashboard/flows/${flowId}`;
}

/** The body of `POST …/activities/{id}/save-workflow` (docs/api-review.md "Save as workflow"), as validated. */
export interface SaveFlowInput {
  workflow_name: string;
  workflow_description?: string | null;
  python_code?: string | null;
  attachments?: Array<Record<string, unknown>> | null;
  timeout_seconds?: number;
}

/** The custom_code contract (docs/api-review.md "Flows"), checked when a flow is saved. */
const TRANSFORM_DEF = /^def\s+transform\s*\(/m;

/** The code of a custom transform: `python_code`, else the activity's `metadata.script.content` (docs/tool-server-design.md "How the local tools behave": `{filename, content, sha256}`). */
function transformCode(activity: ReviewActivity, body: SaveFlowInput): string {
  const script = activity.metadata?.script as { content?: unknown } | undefined;
  const code = body.python_code ?? (typeof script?.content === 'string' ? script.content : null);
  if (!code)
    throw ValidationError.at(
      ['body', 'python_code'],
      'The activity has no script with content: give python_code (Python defining def transform(rows: list[dict]) -> list[dict])',
      'missing',
    );
  return code;
}

/** A custom_code node of `code`. @throws ValidationError when the code does not define `transform` */
function codeNode(code: string, body: SaveFlowInput, loc: string): FlowNode {
  if (!TRANSFORM_DEF.test(code)) throw ValidationError.at(['body', loc], 'The code must define def transform(rows: list[dict]) -> list[dict] at top level');
  return { id: 'custom_code', type: 'custom_code', config: { python_code: code, timeout_seconds: body.timeout_seconds ?? DEFAULT_CODE_TIMEOUT_S } };
}

/** The nodes of a flow saved from `activity` (see the file comment). */
async function nodesOf(knex: Knex, activity: ReviewActivity, catalogId: string, body: SaveFlowInput): Promise<FlowNode[]> {
  const input: FlowNode = { id: 'input', type: 'input', config: {} };
  const stage: FlowNode = { id: 'stage', type: 'stage', config: { catalog_id: catalogId } };
  if (activity.type !== 'enrichment') return [input, codeNode(transformCode(activity, body), body, body.python_code ? 'python_code' : 'script'), stage];
  const job = await EnrichmentJob.query(knex).findById(activity.id).throwIfNotFound();
  const schema = job.catalog_id ? (await getCurrentSchema(knex, job.catalog_id)).schema_definition : null;
  const enrich: FlowNode = { id: 'enrich', type: 'enrich', config: { request: enrichmentRecipe(job.config, schema) } };
  return body.python_code ? [input, codeNode(body.python_code, body, 'python_code'), enrich, stage] : [input, enrich, stage];
}

/**
 * Refuses `nodes` with a custom_code node while the `python_flows` capability is off
 * (src/services/capabilities.ts): its Python runs only in the sandbox, so the flow would fail at
 * that node. `pythonFlows` undefined: not checked (operators' tools, fixtures).
 * @param what the flow as the message names it, e.g. "this flow"
 * @throws CapabilityOffError (503) naming `python_flows` and why it is off
 */
export function assertCodeNodesRunnable(nodes: FlowNode[], pythonFlows: Capability | undefined, what: string): void {
  if (pythonFlows && nodes.some((n) => n.type === 'custom_code'))
    assertCapabilityOn('python_flows', pythonFlows, `${what} has a custom_code node, whose Python runs only in the sandbox (docs/sandbox.md)`);
}

/** Attachments (docs/api-review.md "Save as workflow": "metadata persisted on workflow/nodes") naming a node by `node_id` are kept on that node too. */
function attachToNodes(nodes: FlowNode[], attachments: Array<Record<string, unknown>>): FlowNode[] {
  return nodes.map((n) => {
    const own = attachments.filter((a) => a.node_id === n.id);
    return own.length ? { ...n, attachments: own } : n;
  });
}

/**
 * `POST /public/catalogs/{cid}/activities/{aid}/save-workflow` (docs/api-review.md "Save as workflow"): saves the activity as a
 * flow of the organization (see the file comment).
 * @returns the stored flow
 * @throws NotFoundError (404) for an unknown catalog or activity, or an activity of another
 *   catalog; ForbiddenError (403) for another organization's; ValidationError (422) when a custom
 *   transform has no code or the code defines no `transform`; CapabilityOffError (503) when the
 *   flow would have a custom_code node and `pythonFlows` is off ({@link assertCodeNodesRunnable})
 */
export async function saveFlowFromReviewActivity(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  activityId: string,
  body: SaveFlowInput,
  pythonFlows?: Capability,
): Promise<Flow> {
  await loadCatalogOwned(knex, scope, catalogId);
  const activity = await loadReviewActivity(knex, scope, activityId);
  // An enrichment job without a catalog stages into the catalog of the path.
  if (activity.catalog_id !== null && activity.catalog_id !== catalogId) throw new NotFoundError('Activity not found in this catalog');
  const attachments = body.attachments ?? [];
  const nodes = attachToNodes(await nodesOf(knex, activity, catalogId, body), attachments);
  assertCodeNodesRunnable(nodes, pythonFlows, 'the flow');
  return Flow.query(knex).insertAndFetch({
    id: newId(),
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    name: body.workflow_name,
    description: body.workflow_description ?? null,
    nodes,
    attachments,
    source_activity_id: activity.id,
  });
}

/** `GET /public/workflows` query. */
export interface FlowListQuery {
  search?: string;
  limit: number;
  offset: number;
}

/**
 * `GET /public/workflows`: the organization's flows, newest first, filtered by `search`
 * (case-insensitive substring of name or description).
 * @returns `{flows, total}` (total before limit/offset)
 */
export async function listFlows(knex: Knex, scope: Scope, q: FlowListQuery): Promise<{ flows: Flow[]; total: number }> {
  const base = Flow.query(knex)
    .where({ organization_id: scope.organizationId })
    .modify((b) => {
      if (q.search) {
        const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        b.where((w) => w.whereILike('name', like).orWhereILike('description', like));
      }
    });
  const total = await base.clone().resultSize();
  const flows = await base
    .clone()
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(q.offset)
    .limit(q.limit);
  return { flows, total };
}

/** A flow of the scope. @throws NotFoundError `Workflow not found` (404), ForbiddenError (403) */
export function loadFlow(knex: Knex | Knex.Transaction, scope: Scope, flowId: string): Promise<Flow> {
  return loadOwned<Flow>(knex, Flow, flowId, scope, 'Workflow not found');
}
