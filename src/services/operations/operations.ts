/**
 * The organization's long-running operations in one list (the jobs page; the
 * home page's last operations): enrichment jobs (`enrichment_jobs`), spreadsheet imports
 * (`catalog_imports`, dry runs included), applies of review activities (`review_activities`
 * with an `apply_progress`), snapshot restores (`snapshot_restores`, each run by its workflow)
 * and exports (`catalog_exports`: an export streams in the request that asks for it, GET
 * …/items/export, and is recorded as it starts and ends).
 *
 * Statuses are normalised to `running | completed | failed | cancelled` (an apply's `queued` and
 * `applying` phases and a restore's `queued` and `restoring` are `running`; an export whose
 * client went away is `cancelled`). `errors` counts what went wrong without failing the operation: an enrichment job's
 * failed items, an import's failed lines, an apply's failed changes.
 */
import type { Knex } from 'knex';

/** The kinds of operation the list holds. */
export const OPERATION_KINDS = ['enrichment', 'import', 'apply', 'restore', 'export'] as const;
/** One of {@link OPERATION_KINDS}. */
export type OperationKind = (typeof OPERATION_KINDS)[number];
/** The normalised statuses of an operation. */
export const OPERATION_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
/** One of {@link OPERATION_STATUSES}. */
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** One operation as the list shows it. */
export interface Operation {
  kind: OperationKind;
  id: string;
  catalog_id: string | null;
  /** The catalog's name (null for a job without a catalog). */
  catalog_name: string | null;
  status: OperationStatus;
  /** Work units in all (items of a job, lines of an import, rows of a finished export); null when the operation has none (apply, restore). */
  total: number | null;
  /** Units done so far; null as `total`. */
  done: number | null;
  /** Units or changes that failed (see the module comment). */
  errors: number;
  /** Why the operation failed, when it did. */
  error: string | null;
  /** Import: a dry run (nothing written). */
  dry_run: boolean;
  /** The snapshot restored (restore), or the file's name (import, export); else null. */
  detail: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** Filters and page of {@link listOperations}. */
export interface OperationQuery {
  kind?: OperationKind;
  status?: OperationStatus;
  /** 1-based page. */
  page: number;
  pageSize: number;
}

/** A page of operations, newest first, and how many match in all. */
export interface OperationPage {
  operations: Operation[];
  total: number;
}

/** The union of every operation of organization `?` (bound once per branch), as SQL rows of {@link Operation}. */
const UNION_SQL = `
  SELECT 'enrichment' AS kind, j.id, j.catalog_id, j.status::text AS status, j.total_items AS total, j.completed_items AS done,
         (j.completed_items - j.successful) AS errors, j.error, false AS dry_run, j.current_step AS detail,
         j.created_at, j.updated_at, j.completed_at
    FROM enrichment_jobs j WHERE j.organization_id = :org
  UNION ALL
  SELECT 'import', i.id, i.catalog_id, i.status::text, i.total_lines, (i.created + i.updated + i.unchanged + i.failed), i.failed, i.error,
         i.dry_run, i.file_name, i.created_at, coalesce(i.completed_at, i.created_at), i.completed_at
    FROM catalog_imports i WHERE i.organization_id = :org
  UNION ALL
  SELECT 'apply', a.id, a.catalog_id,
         CASE a.apply_progress->>'phase' WHEN 'completed' THEN 'completed' WHEN 'failed' THEN 'failed' ELSE 'running' END,
         NULL, NULL, coalesce((a.apply_result->>'failed')::int, (a.apply_progress->>'failed')::int, 0), a.apply_progress->>'error',
         false, a.description, a.updated_at, a.updated_at,
         CASE WHEN a.apply_progress->>'phase' IN ('completed', 'failed') THEN a.updated_at END
    FROM review_activities a WHERE a.organization_id = :org AND a.apply_progress IS NOT NULL
  UNION ALL
  SELECT 'restore', r.id, r.catalog_id,
         CASE r.status WHEN 'completed' THEN 'completed' WHEN 'failed' THEN 'failed' ELSE 'running' END,
         NULL, NULL, 0, r.error, false, r.snapshot_id::text, r.created_at, coalesce(r.finished_at, r.started_at, r.created_at), r.finished_at
    FROM snapshot_restores r WHERE r.organization_id = :org
  UNION ALL
  SELECT 'export', e.id, e.catalog_id, e.status, e.rows, e.rows, 0, e.error, false, e.file_name, e.created_at, coalesce(e.completed_at, e.created_at), e.completed_at
    FROM catalog_exports e WHERE e.organization_id = :org`;

/**
 * Lists the operations of `organizationId`, newest first (by creation), filtered by kind and
 * status, one page at a time; each with its catalog's name.
 */
export async function listOperations(knex: Knex, organizationId: string, q: OperationQuery): Promise<OperationPage> {
  const where: string[] = [];
  const bindings: Record<string, unknown> = { org: organizationId, limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
  if (q.kind) {
    where.push('o.kind = :kind');
    bindings.kind = q.kind;
  }
  if (q.status) {
    where.push('o.status = :status');
    bindings.status = q.status;
  }
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [rows, count] = await Promise.all([
    knex.raw(
      `SELECT o.*, c.name AS catalog_name FROM (${UNION_SQL}) o LEFT JOIN catalogs c ON c.id = o.catalog_id ${filter}
        ORDER BY o.created_at DESC, o.id LIMIT :limit OFFSET :offset`,
      bindings,
    ),
    knex.raw(`SELECT count(*)::int AS n FROM (${UNION_SQL}) o ${filter}`, bindings),
  ]);
  return {
    operations: (rows.rows as Array<Record<string, unknown>>).map((r) => ({
      kind: r.kind as OperationKind,
      id: String(r.id),
      catalog_id: (r.catalog_id as string | null) ?? null,
      catalog_name: (r.catalog_name as string | null) ?? null,
      status: r.status as OperationStatus,
      total: r.total === null ? null : Number(r.total),
      done: r.done === null ? null : Number(r.done),
      errors: Number(r.errors ?? 0),
      error: (r.error as string | null) ?? null,
      dry_run: r.dry_run === true,
      detail: (r.detail as string | null) ?? null,
      created_at: r.created_at as Date,
      updated_at: r.updated_at as Date,
      completed_at: (r.completed_at as Date | null) ?? null,
    })),
    total: (count.rows as Array<{ n: number }>)[0].n,
  };
}

/**
 * Estimated seconds until a running operation finishes, from its rate so far: elapsed time since
 * it started × units left ÷ units done. Null when it is not running, has no units, or has done
 * none yet (no rate to go by).
 * @param now the current time (ms since the epoch)
 */
export function etaSeconds(op: Pick<Operation, 'status' | 'total' | 'done' | 'created_at'>, now: number): number | null {
  if (op.status !== 'running' || op.total === null || op.done === null || op.done <= 0 || op.done >= op.total) return null;
  const elapsed = (now - new Date(op.created_at).getTime()) / 1000;
  if (elapsed <= 0) return null;
  return Math.ceil((elapsed * (op.total - op.done)) / op.done);
}

/** One line of an operation's error report: where (item row, line or change) and why. */
export interface OperationErrorLine {
  /** The enrichment row index (0-based), the import line (1 = header) or the change's row index. */
  position: number;
  message: string;
}

/** Error lines read per page by {@link operationErrors}. */
const ERROR_PAGE = 1000;

/**
 * The errors of one operation of `organizationId`, page by page in order (a CSV download streams
 * them with bounded memory): an enrichment job's failed items (row index, the engine's error), an
 * import's failed lines (line, the errors' messages), an apply's failed changes (row index,
 * reason; the apply result keeps the first 100). A restore or an export has none.
 * @returns null when no such operation belongs to the organization
 */
export async function operationErrors(
  knex: Knex,
  organizationId: string,
  kind: OperationKind,
  id: string,
): Promise<AsyncGenerator<OperationErrorLine[]> | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  if (kind === 'enrichment') {
    if (!(await knex('enrichment_jobs').where({ id, organization_id: organizationId }).first('id'))) return null;
    return pages(async (after) =>
      (
        await knex('enrichment_rows')
          .where({ job_id: id, status: 'failed' })
          .andWhere('row_index', '>', after)
          .orderBy('row_index')
          .limit(ERROR_PAGE)
          .select('row_index', 'error', 'result')
      ).map((r: { row_index: number; error: string | null; result: Record<string, unknown> | null }) => ({
        position: r.row_index,
        message: r.error ?? String(r.result?.error ?? 'failed'),
      })),
    );
  }
  if (kind === 'import') {
    if (!(await knex('catalog_imports').where({ id, organization_id: organizationId }).first('id'))) return null;
    return pages(async (after) =>
      (
        await knex('catalog_import_lines')
          .where({ import_id: id, status: 'failed' })
          .andWhere('line', '>', after)
          .orderBy('line')
          .limit(ERROR_PAGE)
          .select('line', 'errors')
      ).map((r: { line: number; errors: Array<{ msg: string; loc?: unknown[] }> | null }) => ({
        position: r.line,
        message: (r.errors ?? []).map((e) => (e.loc?.length ? `${e.loc.join('.')}: ${e.msg}` : e.msg)).join('; '),
      })),
    );
  }
  if (kind === 'apply') {
    const a = await knex('review_activities').where({ id, organization_id: organizationId }).whereNotNull('apply_progress').first('apply_result');
    if (!a) return null;
    const errors = Array.isArray(a.apply_result?.errors) ? (a.apply_result.errors as Array<{ row_index?: number; reason?: string }>) : [];
    return pages(async (after) => (after < 0 ? errors.map((e) => ({ position: Number(e.row_index ?? 0), message: String(e.reason ?? '') })) : []));
  }
  // A restore or an export fails as a whole (its `error` is on the operation): no error lines.
  const table = kind === 'restore' ? 'snapshot_restores' : 'catalog_exports';
  return (await knex(table).where({ id, organization_id: organizationId }).first('id')) ? pages(async () => []) : null;
}

/** Pages from `read(after)` until one is shorter than a full page (`after` starts at -1). */
async function* pages(read: (after: number) => Promise<OperationErrorLine[]>): AsyncGenerator<OperationErrorLine[]> {
  let after = -1;
  for (;;) {
    const page = await read(after);
    if (page.length) yield page;
    if (page.length < ERROR_PAGE) return;
    after = page[page.length - 1].position;
  }
}
