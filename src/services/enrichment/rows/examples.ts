import type { Knex } from 'knex';
import { inputText } from '../../../enrichment/engine';
import { learnedTextFields } from '../../../enrichment/learned-text';
import type { CatalogTextExample } from '../../../enrichment/types';
import { cachedLoad, type BoundedCache } from '../../../lib/bounded-cache';
import { EnrichmentJobExample } from '../../../models/enrichment-job-example';
import { EnrichmentRow } from '../../../models/enrichment-row';
import { engineItem } from './engine-item';

/**
 * Catalog examples of `web_search: false` jobs that write to a catalog: the target catalog's
 * own items (their texts and the values the catalog holds for the job's output fields), from
 * which the engine learns where and how this catalog writes its values (the text tagger,
 * src/enrichment/learned-text.ts). `npm run eval -- text` measures this very mechanism, its
 * `--examples` folder playing the catalog (evaluation.md, "text").
 *
 * Sampled once at job creation and stored per job (table `enrichment_job_examples`), not in
 * the job config, which every row reads, with the texts of the job's own items (unlabelled: the
 * model counts title phrases over them, src/enrichment/text/corpus.ts); resumed and re-extracted
 * jobs copy the earlier job's examples and texts, so the same stored inputs give the same output.
 */

/** Catalog items sampled (newest first) as examples: bounds the stored size and the training time. */
export const TEXT_EXAMPLE_ITEMS = 1000;
/** Total characters of example texts kept at most (items with long descriptions stop the sample earlier). */
const TEXT_EXAMPLE_CHARS = 400_000;
/** Items looked at at most while sampling (items without text or values are skipped). */
const TEXT_EXAMPLE_SCAN = 20_000;
/** Longest value kept as an example label, in characters (the same bound as `knownValues`). */
const TEXT_EXAMPLE_VALUE_MAX = 200;

/** Items read per query while sampling. */
const PAGE = 1000;

/**
 * The values a text states: those occurring in it, ignoring case (the text model labels the
 * same occurrences, written forms with a plural ending included).
 */
function statedIn(text: string, values: Record<string, string>): Record<string, string> {
  const lower = text.toLowerCase();
  return Object.fromEntries(Object.entries(values).filter(([, v]) => lower.includes(v.toLowerCase())));
}

/**
 * Samples a catalog's items as text examples for a job whose output fields are `fields`: the
 * newest items (by `created_at`, then id) that have at least one non-blank string value of at
 * most {@link TEXT_EXAMPLE_VALUE_MAX} characters among `fields` and a text stating one, until
 * {@link TEXT_EXAMPLE_ITEMS} items or {@link TEXT_EXAMPLE_CHARS} characters of text (at most
 * {@link TEXT_EXAMPLE_SCAN} items looked at). An item's texts are what the engine reads from
 * an input item (`inputText` of engine.ts, after `engineItem` drops control keys), without the
 * output fields themselves. Each text is one example, since the engine reads each text of an
 * item on its own; its values are the item's values that the text states ({@link statedIn}),
 * so the per-field choice between tagger and rules is not charged for values no text could
 * have given (the eval's gold is likewise what the title states), and a text stating none is
 * a negative example. Texts of item fields that state no value in any sampled item (SKUs,
 * URLs) are left out: the engine reads those with the rule layer only.
 * @returns examples in item order (newest first), then the item's key order; [] when none qualify
 */
export async function catalogTextExamples(knex: Knex | Knex.Transaction, catalogId: string, fields: string[]): Promise<CatalogTextExample[]> {
  if (fields.length === 0) return [];
  const outputs = new Set(fields);
  const out: CatalogTextExample[] = [];
  let items = 0;
  let chars = 0;
  let scanned = 0;
  let cursor: { created_at: string; id: string } | null = null;
  while (items < TEXT_EXAMPLE_ITEMS && chars < TEXT_EXAMPLE_CHARS && scanned < TEXT_EXAMPLE_SCAN) {
    // created_at as text keeps its microseconds, so the keyset cursor never skips or repeats an item.
    const { rows } = (await knex.raw(
      `SELECT id, created_at::text AS created_at, data FROM catalog_items
       WHERE catalog_id = ?
         AND EXISTS (SELECT 1 FROM jsonb_each(data) e WHERE e.key = ANY(?) AND jsonb_typeof(e.value) = 'string'
                     AND btrim(e.value #>> '{}') <> '' AND length(e.value #>> '{}') <= ?)
         ${cursor ? 'AND (created_at, id) < (?::timestamptz, ?::uuid)' : ''}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      [catalogId, fields, TEXT_EXAMPLE_VALUE_MAX, ...(cursor ? [cursor.created_at, cursor.id] : []), Math.min(PAGE, TEXT_EXAMPLE_SCAN - scanned)],
    )) as { rows: Array<{ id: string; created_at: string; data: Record<string, unknown> }> };
    if (rows.length === 0) break;
    scanned += rows.length;
    cursor = rows[rows.length - 1]!;
    for (const row of rows) {
      const data = engineItem(row.data ?? {});
      const values: Record<string, string> = {};
      for (const name of fields) {
        const v = data[name];
        if (typeof v === 'string' && v.trim() !== '' && v.length <= TEXT_EXAMPLE_VALUE_MAX) values[name] = v;
      }
      if (Object.keys(values).length === 0) continue;
      const texts = inputText(Object.fromEntries(Object.entries(data).filter(([k]) => !outputs.has(k))));
      const examples = texts.map(([field, text]) => ({ field, text, values: statedIn(text, values) }));
      // An item whose texts state none of its values shows nothing about where values are written.
      if (!examples.some((e) => Object.keys(e.values).length > 0)) continue;
      out.push(...examples);
      items += 1;
      chars += texts.reduce((sum, [, text]) => sum + text.length, 0);
      if (items >= TEXT_EXAMPLE_ITEMS || chars >= TEXT_EXAMPLE_CHARS) break;
    }
  }
  // Only fields whose texts state values somewhere are read by the tagger (engine.ts): drop the rest.
  const stating = new Set(out.filter((e) => Object.keys(e.values).length > 0).map((e) => e.field));
  return out.filter((e) => stating.has(e.field));
}

/** Texts of a job's items kept at most as the learned model's unlabelled texts (the first rows'). */
const JOB_CORPUS_TEXTS = 5000;
/** Total characters of a job's item texts kept at most. */
const JOB_CORPUS_CHARS = 2_000_000;

/**
 * The texts of a job's items that the learned model reads besides the examples: in row order,
 * each text of an item field the examples teach (learned-text.ts learnedTextFields), at most
 * {@link JOB_CORPUS_TEXTS} texts and {@link JOB_CORPUS_CHARS} characters.
 */
async function jobCorpus(trx: Knex.Transaction, jobId: string, examples: CatalogTextExample[]): Promise<string[]> {
  const fields = learnedTextFields(examples);
  const texts: string[] = [];
  let chars = 0;
  for (let offset = 0; texts.length < JOB_CORPUS_TEXTS && chars < JOB_CORPUS_CHARS; offset += PAGE) {
    const rows = await EnrichmentRow.query(trx).where({ job_id: jobId }).orderBy('row_index').offset(offset).limit(PAGE).select('input');
    for (const row of rows) {
      for (const [field, text] of inputText(engineItem(row.input ?? {}))) {
        if (!fields.has(field) || texts.length >= JOB_CORPUS_TEXTS || chars >= JOB_CORPUS_CHARS) continue;
        texts.push(text);
        chars += text.length;
      }
    }
    if (rows.length < PAGE) break;
  }
  return texts;
}

/**
 * Stores a new job's examples with the texts of its own items ({@link jobCorpus}) inside the
 * job's creation transaction, once its rows are inserted (nothing when there are no examples).
 */
export async function saveJobExamples(trx: Knex.Transaction, jobId: string, examples: CatalogTextExample[]): Promise<void> {
  if (examples.length === 0) return;
  const texts = await jobCorpus(trx, jobId, examples);
  await EnrichmentJobExample.query(trx).insert({ job_id: jobId, examples, texts });
}

/**
 * Gives a resumed or re-extracted job the examples and item texts of the job it continues
 * (set-based copy; nothing when that job had none), so its rows are extracted by the same
 * learned model.
 */
export async function copyJobExamples(trx: Knex.Transaction, fromJobId: string, toJobId: string): Promise<void> {
  await trx.raw(
    `INSERT INTO enrichment_job_examples (job_id, examples, texts) SELECT ?, examples, texts FROM enrichment_job_examples WHERE job_id = ?
     ON CONFLICT (job_id) DO NOTHING`,
    [toJobId, fromJobId],
  );
}

/** A job's learning material: its catalog examples and the texts of its own items ([] when none). */
export interface JobTextExamples {
  examples: CatalogTextExample[];
  texts: string[];
}

/** Loaded examples by job id (EnrichmentCaches.jobTextExamples, 8 jobs kept). */
export type JobTextExamplesCache = BoundedCache<Promise<JobTextExamples>>;

/**
 * A job's examples and item texts (both [] when it has none), loaded once per worker: the
 * promise is kept in `cache` by job id (a failed load is forgotten), so every row of a job gets the same arrays, and the engine's
 * trained model (cached by the examples array's identity, src/enrichment/learned-text.ts) is
 * reused across rows. Both never change after the job is created.
 */
export function jobTextExamples(knex: Knex, cache: JobTextExamplesCache, jobId: string): Promise<JobTextExamples> {
  return cachedLoad(cache, jobId, () =>
    EnrichmentJobExample.query(knex)
      .findById(jobId)
      .select('examples', 'texts')
      .then((row) => ({ examples: row?.examples ?? [], texts: row?.texts ?? [] })),
  );
}
