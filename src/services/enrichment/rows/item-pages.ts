/**
 * The pages items name themselves (`url`, `product_url`, `source_url`, source hint URLs) at the
 * level of a job (docs/research.md, "An item's own page"): which rows of a job without a research
 * source still research (their own pages only), and the notice of a deployment that does not
 * fetch them (FETCH_ITEM_URLS=false).
 */
import type { Knex } from 'knex';
import { ITEM_URL_FIELDS, itemPageUrls } from '../../../enrichment/research/item-page';
import type { EnrichJobConfig } from '../../../schemas/enrich';
import { ITEM_URLS_OFF_NOTICE } from '../../research-archives/sources';
import { engineItem } from './engine-item';

/** The job settings {@link itemPagesOnly} reads. */
type ItemPagesConfig = Pick<EnrichJobConfig, 'web_search' | 'source_hint_sets'> & { item_pages_only?: boolean };

/**
 * Whether a row researches only its item's own pages: its job has no research source but reads
 * the pages items name (`config.item_pages_only`, set at job creation) and this item names one.
 * Such a row is researched (`web_search` true for it) without any search; the job's other rows
 * read their own data (`web_search: false`).
 */
export function itemPagesOnly(config: ItemPagesConfig, item: Record<string, unknown>): boolean {
  if (config.item_pages_only !== true) return false;
  const hintId = item.source_hint_set_id;
  const hints = typeof hintId === 'string' ? config.source_hint_sets?.[hintId] : undefined;
  return itemPageUrls(engineItem(item), hints).length > 0;
}

/**
 * Whether some row of job `jobId` names a page of its own: an item key of ITEM_URL_FIELDS
 * (src/enrichment/research/item-page.ts), or a source hint set of the job with URLs. One query
 * over the job's rows (stops at the first match).
 */
async function jobNamesItemPages(knex: Knex, jobId: string, config: Pick<EnrichJobConfig, 'source_hint_sets'>): Promise<boolean> {
  if (Object.values(config.source_hint_sets ?? {}).some((set) => (set?.urls?.length ?? 0) > 0)) return true;
  const row = await knex('enrichment_rows').where('job_id', jobId).whereRaw('input \\?| ?::text[]', [ITEM_URL_FIELDS]).first(knex.raw('1 as found'));
  return row !== undefined;
}

/**
 * For a deployment that does not fetch item URLs (`itemUrls` false: FETCH_ITEM_URLS=false), adds
 * ITEM_URLS_OFF_NOTICE to the stored job's notices (`config.recorded_noops`, in memory and in
 * `enrichment_jobs`) when some of its rows name a page. `researches`: the job asked for web
 * research (a `web_search: false` or re-extraction job would not have read the pages anyway).
 * Runs inside the transaction that stored the job and its rows.
 */
export async function noteItemUrlsOff(trx: Knex, itemUrls: boolean, researches: boolean, jobId: string, config: EnrichJobConfig): Promise<void> {
  if (itemUrls || !researches || !(await jobNamesItemPages(trx, jobId, config))) return;
  config.recorded_noops = [...new Set([...(config.recorded_noops ?? []), ITEM_URLS_OFF_NOTICE])];
  await trx('enrichment_jobs')
    .where('id', jobId)
    .update({ config: trx.raw(`jsonb_set(config, '{recorded_noops}', ?::jsonb)`, [JSON.stringify(config.recorded_noops)]) });
}
