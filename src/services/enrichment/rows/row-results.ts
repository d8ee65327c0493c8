import type { Knex } from 'knex';
import type { EngineUsage, EnrichmentResult, OutputField } from '../../../enrichment/types';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { EnrichmentRow } from '../../../models/enrichment-row';
import { ArtifactRecord, recordArtifacts } from './artifacts';
import { stagedStatusFor } from './audit-options';
import { chargeSucceededRows } from './credit-charges';
import { insertEvidenceDocuments, KnownEvidenceDocs, rememberEvidenceDocuments, splitEvidence } from './evidence';
import { CatalogTarget, stageRowResults } from './staging';

/**
 * The idempotent write of computed rows (Temporal rule 4): a row moves from `pending` to
 * `succeeded`/`failed` once, and the job's counters move by the rows actually written, and each
 * newly successful row is charged in the credit ledger (./credit-charges.ts), in the same
 * transaction (./rows.ts computes the rows and explains the per-row cost).
 */

/** One computed row, ready for {@link writeRowResults}. */
export interface RowWrite {
  rowIndex: number;
  outcome: { result: EnrichmentResult; evidence: unknown; usage: EngineUsage | null };
  artifacts?: ArtifactRecord[];
}

/** What {@link writeRowResults} needs: the database and the documents this process saw committed. */
export interface RowWriteDeps {
  knex: Knex;
  knownEvidenceDocs: KnownEvidenceDocs;
}

/** The job fields a write reads (never changed after creation, except `status`). */
type WritingJob = Pick<EnrichmentJob, 'status' | 'organization_id' | 'config'>;

/** Values of one written row, in the column order of {@link updateRows}: index, status, result, evidence, usage, error. */
type RowValues = [number, string, string, string | null, string | null, string | null];

/** Thrown inside {@link writeRowResults}'s transaction to roll it back when the job stopped running. */
class JobNotRunning extends Error {}

/**
 * Writes the results of several rows of one job in ONE transaction: each only while its row is
 * `pending`, all only while the job is `running`, and the job counters move once, by the rows
 * actually written, in the same transaction (exact and idempotent: a row counts only when this
 * transaction moved it out of `pending`). Each row this transaction records as `succeeded` is
 * charged one credit in `credit_charges` in that transaction too (./credit-charges.ts; unique per
 * row, so a retried write never charges twice). When the job targets a catalog
 * (`config.catalog_target`), each result is staged on the job's activity in that transaction and
 * `result.staged_change_id` names the staged change; captured artifacts are recorded there too.
 * The evidence's parsed pages are stored content-addressed in the same transaction
 * (./evidence.ts splitEvidence, insertEvidenceDocuments).
 *
 * Locking: the rows are locked first (`FOR UPDATE` on the still-pending ones, in row order: a
 * concurrent attempt at the same rows waits, then finds them done); the job row only by the
 * final counter update, guarded by `status = 'running'`. A cancel or finalize that commits first
 * makes that update match nothing and the whole write rolls back; one that comes later waits for
 * this commit and counts the rows. So the job row is held for one statement and the commit, not
 * for the whole write, and concurrent batches of a job do not queue behind each other's writes.
 * Lock order is always documents (by hash) → rows (by index) → charges (by row, unique index) → job
 * (finalizeJob and cancel take only the job row, and finalizeJob reads the committed charges after
 * it): no deadlock.
 * @returns per entry, true when this call wrote it (false: already written, or the job stopped)
 */
export async function writeRowResults(deps: RowWriteDeps, jobId: string, writes: RowWrite[]): Promise<boolean[]> {
  if (!writes.length) return [];
  const { knex } = deps;
  // organization_id and config never change after creation: read without locking; the config's
  // taxonomy (megabytes for a large one, read per write otherwise) is not needed to write rows.
  const job = await EnrichmentJob.query(knex).findById(jobId).select('status', 'organization_id', knex.raw("config - 'taxonomy' AS config"));
  if (!job || job.status !== 'running') return writes.map(() => false);
  const splits = writes.map((w) =>
    w.outcome.evidence === null || w.outcome.evidence === undefined ? null : splitEvidence(deps.knownEvidenceDocs, job.organization_id, w.outcome.evidence),
  );
  const fresh = [...new Map(splits.flatMap((sp) => sp?.fresh ?? [])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  let written: boolean[];
  try {
    written = await knex.transaction(async (trx) => {
      await insertEvidenceDocuments(trx, job.organization_id, fresh);
      const inputs = await lockPendingRows(trx, jobId, writes);
      const mine = claimRows(writes, inputs);
      const target = job.config?.catalog_target as CatalogTarget | undefined;
      const staged = target
        ? await stageWrites(
            trx,
            jobId,
            job,
            target,
            writes.filter((_, k) => mine[k]),
            inputs,
          )
        : null;
      const values: RowValues[] = [];
      for (const [k, w] of writes.entries()) {
        if (!mine[k]) continue;
        if (staged) w.outcome.result.staged_change_id = staged.get(w.rowIndex);
        if (w.artifacts?.length) await recordArtifacts(trx, { id: jobId, organization_id: job.organization_id }, w.rowIndex, w.artifacts);
        values.push(rowValues(w, splits[k] ? splits[k]!.evidence : null));
      }
      if (!values.length) return writes.map(() => false);
      await updateRows(trx, jobId, values);
      await chargeSucceededRows(
        trx,
        job.organization_id,
        jobId,
        values.filter((v) => v[1] === 'succeeded').map((v) => v[0]),
      );
      await countWritten(trx, jobId, values);
      return mine;
    });
  } catch (err) {
    if (err instanceof JobNotRunning) return writes.map(() => false);
    throw err;
  }
  // Committed: only now may this process skip these pages next time.
  rememberEvidenceDocuments(deps.knownEvidenceDocs, job.organization_id, fresh);
  return written;
}

/** Locks the still-pending rows of `writes` in row order; returns row index → input item. */
async function lockPendingRows(trx: Knex.Transaction, jobId: string, writes: RowWrite[]): Promise<Map<number, Record<string, unknown>>> {
  const locked = await EnrichmentRow.query(trx)
    .where({ job_id: jobId, status: 'pending' })
    .whereIn(
      'row_index',
      writes.map((w) => w.rowIndex),
    )
    .orderBy('row_index')
    .forUpdate()
    .select('row_index', 'input');
  return new Map(locked.map((r) => [r.row_index, r.input]));
}

/** Per write, whether this call writes it: its row is locked pending, and a row listed twice is written by its first entry only. */
function claimRows(writes: RowWrite[], inputs: Map<number, unknown>): boolean[] {
  const claimed = new Set<number>();
  return writes.map((w) => {
    const ok = inputs.has(w.rowIndex) && !claimed.has(w.rowIndex);
    if (ok) claimed.add(w.rowIndex);
    return ok;
  });
}

/** Stages the claimed writes on the job's activity (./staging.ts); returns row index → staged change id. */
function stageWrites(
  trx: Knex.Transaction,
  jobId: string,
  job: WritingJob,
  target: CatalogTarget,
  claimed: RowWrite[],
  inputs: Map<number, Record<string, unknown>>,
): Promise<Map<number, string>> {
  return stageRowResults(
    trx,
    { id: jobId, organization_id: job.organization_id },
    target,
    claimed.map((w) => ({
      rowIndex: w.rowIndex,
      input: inputs.get(w.rowIndex)!,
      result: w.outcome.result,
      status: stagedStatusFor(job.config, w.outcome.result),
    })),
    mergeFieldsOf(job.config),
  );
}

/** The names of the job's output fields (attribute sets included) with `merge: true`. */
function mergeFieldsOf(config: WritingJob['config']): Set<string> {
  const sets = Object.values((config?.attribute_sets ?? {}) as Record<string, unknown>).flatMap((e) =>
    Array.isArray(e) ? e : ((e as { attributes?: unknown[] })?.attributes ?? []),
  ) as OutputField[];
  return new Set([...((config?.output_schema ?? []) as OutputField[]), ...sets].filter((f) => f?.merge === true).map((f) => f.name));
}

/** The column values of one written row (JSON columns as text, cast in {@link updateRows}). */
function rowValues(w: RowWrite, evidence: unknown): RowValues {
  const result = w.outcome.result;
  return [
    w.rowIndex,
    result.error ? 'failed' : 'succeeded',
    JSON.stringify(result),
    evidence === null ? null : JSON.stringify(evidence),
    w.outcome.usage === null ? null : JSON.stringify(w.outcome.usage),
    result.error ?? null,
  ];
}

/** Writes the rows' results in one set-based `UPDATE … FROM unnest(…)`, only where still pending. */
async function updateRows(trx: Knex.Transaction, jobId: string, values: RowValues[]): Promise<void> {
  await trx.raw(
    `UPDATE enrichment_rows r
     SET status = v.status, result = v.result::jsonb, evidence = v.evidence::jsonb, usage = v.usage::jsonb, error = v.error, completed_at = now(),
       write_count = r.write_count + 1
     FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS v(row_index, status, result, evidence, usage, error)
     WHERE r.job_id = ? AND r.row_index = v.row_index AND r.status = 'pending'`,
    [...[0, 1, 2, 3, 4, 5].map((c) => values.map((v) => v[c])), jobId] as unknown as readonly Knex.RawBinding[],
  );
}

/**
 * Moves the job's counters by the written rows, in SQL, only while the job is `running`.
 * @throws JobNotRunning when the job stopped meanwhile (the caller's transaction rolls back)
 */
async function countWritten(trx: Knex.Transaction, jobId: string, values: RowValues[]): Promise<void> {
  const succeeded = values.filter((v) => v[1] === 'succeeded').length;
  const counted = await trx('enrichment_jobs')
    .where({ id: jobId, status: 'running' })
    .update({
      completed_items: trx.raw('completed_items + ?', [values.length]),
      successful: trx.raw('successful + ?', [succeeded]),
      updated_at: trx.fn.now(),
    });
  if (counted === 0) throw new JobNotRunning();
}
