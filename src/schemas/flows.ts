/**
 * Request and response schemas of flows (docs/api-review.md "Flows" and
 * "Save as workflow"). Ajv validates them, OpenAPI shows them.
 */
import { Static, Type } from '@sinclair/typebox';
import { AnyArray, AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

const DateTime = Type.String({ format: 'date-time' });

/** Path of save-workflow. */
export const SaveFlowParams = Type.Object({ catalog_id: Type.String({ description: 'Catalog id' }), activity_id: Type.String({ description: 'Activity id' }) });

/** `POST /public/catalogs/{cid}/activities/{aid}/save-workflow` (docs/api-review.md "Save as workflow"). */
export const SaveFlowBody = Type.Object(
  {
    workflow_name: Type.String({ minLength: 1, maxLength: 200 }),
    workflow_description: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
    python_code: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 1_000_000,
          description:
            'Overrides the activity script for the custom_code node. Contract: define `def transform(rows: list[dict]) -> list[dict]`; it receives the node input a page (1,000 rows) at a time; pure Python standard library (no network, no files outside a private scratch directory, no environment, no processes); `print` output is captured into the run `updates`',
        }),
      ),
    ),
    attachments: Type.Optional(
      Nullable(Type.Array(AnyObject(), { maxItems: 100, description: 'Metadata kept on the flow (and on the node named by an entry `node_id`)' })),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1800,
        description: 'Execution timeout of the custom_code node: CPU and wall-clock budget of the whole node (default 300)',
      }),
    ),
  },
  { additionalProperties: false },
);
/** {@link SaveFlowBody} as validated. */
export type SaveFlowInputT = Static<typeof SaveFlowBody>;

/** Answer of save-workflow (docs/api-review.md "Save as workflow"). */
export const SavedFlowResponse = Type.Object({
  workflow_id: Type.String(),
  workflow_name: Type.String(),
  workflow_url: Type.String({ description: '`{PUBLIC_URL}/dashboard/flows/{id}`' }),
  total_nodes: Type.Integer(),
});

/** `GET /public/workflows` query. */
export const FlowListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive, on name and description' })),
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 50)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** A flow as listed (docs/api-review.md "Flows"). */
export const FlowEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  total_nodes: Type.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
  workflow_url: Type.String(),
});

/** `GET /public/workflows` answer. */
export const FlowListResponse = Type.Object({ workflows: Type.Array(FlowEntry), total: Type.Integer(), page: Type.Integer(), page_size: Type.Integer() });

/** Path of one flow. */
export const FlowParams = Type.Object({ workflow_id: Type.String({ description: 'Workflow (flow) id' }) });

const FlowNodeSchema = Type.Object({
  id: Type.String(),
  type: StringEnum(['input', 'custom_code', 'enrich', 'stage'] as const),
  config: AnyObject(),
  attachments: Type.Optional(AnyArray({ items: { type: 'object' } })),
});

const RunStatus = StringEnum(['running', 'completed', 'failed', 'cancelled'] as const);

/** A run as listed on its flow. */
export const RunEntry = Type.Object({
  workflow_run_id: Type.String(),
  status: RunStatus,
  progress: Type.Number(),
  input_count: Type.Integer(),
  created_at: DateTime,
  completed_at: Nullable(DateTime),
  poll_url: Type.String(),
});

/** `GET /public/workflows/{id}`: the flow with its nodes and its latest runs. */
export const FlowDetailResponse = Type.Composite([
  FlowEntry,
  Type.Object({
    catalog_id: Nullable(Type.String()),
    source_activity_id: Nullable(Type.String()),
    nodes: Type.Array(FlowNodeSchema),
    attachments: AnyArray({ items: { type: 'object' } }),
    recent_runs: Type.Array(RunEntry),
  }),
]);

/** `POST /public/workflows/{id}/execute`. */
export const ExecuteFlowBody = Type.Object(
  {
    input: Type.Array(AnyObject(), { description: 'The rows the input node hands to the flow' }),
    cancel_existing: Type.Optional(Type.Boolean({ description: "Cancel this flow's running runs first" })),
  },
  { additionalProperties: false },
);

/** Answer of execute (docs/api-review.md "Flows"). */
export const ExecuteFlowResponse = Type.Object({
  workflow_run_id: Type.String(),
  workflow_id: Type.String(),
  workflow_name: Type.String(),
  status: Type.Literal('running'),
  created_at: DateTime,
  poll_url: Type.String({ description: '`/api/public/workflows/runs/{run_id}`' }),
  workflow_url: Type.String(),
  total_nodes: Type.Integer(),
  message: Type.String(),
});

/** Path of a run. */
export const RunParams = Type.Object({ workflow_run_id: Type.String({ description: 'Run id' }) });

/** `GET /public/workflows/runs/{id}` query. */
export const RunQuery = Type.Object({
  page: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: POSITION_MAX }), 1)),
  page_size: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 50)),
});

const RowsPage = Type.Object({
  data: Type.Array(AnyObject()),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
  has_more: Type.Boolean(),
});

/** The run object (docs/api-review.md "Flow runs" and the Flows run rules). */
export const RunResponse = Type.Object({
  workflow_run_id: Type.String(),
  workflow_id: Type.String(),
  workflow_name: Type.String(),
  workflow_url: Type.String(),
  status: RunStatus,
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  current_step: Nullable(Type.String()),
  message: Nullable(Type.String()),
  created_at: DateTime,
  updated_at: DateTime,
  completed_at: Nullable(DateTime),
  updates: Type.Array(Type.String(), { description: '`print` output of the code and node milestones, oldest first (the newest 1,000)' }),
  results: Nullable(RowsPage),
  node_results: Nullable(Type.Record(Type.String(), Type.Composite([Type.Object({ node_type: Type.String() }), RowsPage]))),
  nodes: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String(),
      status: Type.String(),
      output_count: Type.Integer(),
      executions: Type.Integer(),
      job_id: Type.Optional(Type.String({ description: 'An `enrich` node: its enrichment job (GET /api/public/enrich/{job_id})' })),
      notices: Type.Optional(Type.Array(Type.String(), { description: 'An `enrich` node: the notices of its job (options it could not honour)' })),
    }),
  ),
  failed_node_id: Nullable(Type.String()),
  error: Nullable(Type.String()),
  activity_id: Nullable(Type.String({ description: 'The review activity the stage node left' })),
  review_url: Nullable(Type.String()),
});
