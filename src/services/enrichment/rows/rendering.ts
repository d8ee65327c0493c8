import type { Knex } from 'knex';
import { hasProductData } from '../../../enrichment/providers/product-signals';
import type { FetchedPage } from '../../../enrichment/research/types';
import type { EnrichInput, EnrichmentResult, Evidence } from '../../../enrichment/types';
import { hostsNotNeedingRender, requestRenders } from '../../fetching/render-store';

/**
 * Whether this worker can have pages rendered: `enabled` when a render worker runs
 * (Chromium installed, RENDER_CONCURRENCY > 0, live research); otherwise `unavailable` says why,
 * and rows that would have needed rendering carry that notice. `maxAgeS`: how long a rendering
 * is reused (FETCH_MAX_AGE_S).
 */
export interface RenderSettings {
  enabled: boolean;
  unavailable?: string;
  maxAgeS: number;
}

/**
 * Pages read statically that hold no product data: HTML the live fetcher answered `ok` (an
 * archived page has no outcome and is never rendered: Chromium would load the live site), not
 * rendered, without any product signal.
 */
function pagesWithoutProductData(consulted: FetchedPage[]): FetchedPage[] {
  return consulted.filter(
    (p) => p.outcome === 'ok' && p.status === 200 && !p.rendered && /html/i.test(p.content_type) && !hasProductData(p.body.toString('utf8')),
  );
}

/**
 * Decides whether a row's pages must be rendered before its result is written:
 * when requested fields are still missing and some fetched HTML page had no product data
 * (product-signals.ts), on hosts where rendering is not known to be useless
 * (`fetch_hosts.render_needed` false). With rendering available, the pages are requested
 * (render-store.ts) and true is returned: the row is rendered by the render activity and then
 * processed again, and the fetcher serves the rendered DOM. Without it, the row's evidence
 * `problems` and `review_info.flags` (`not_rendered`) say so, and false is returned.
 * @returns true when renders were requested (nothing is written for the row now)
 */
export async function requestRowRenders(
  knex: Knex,
  settings: RenderSettings,
  row: { job_id: string; row_index: number },
  input: EnrichInput,
  result: EnrichmentResult,
  evidence: unknown,
  consulted: FetchedPage[],
): Promise<boolean> {
  if (!input.options.web_search || result.error) return false;
  const missing = input.output_schema.filter((f) => !(f.name in result.after_data.sources));
  if (missing.length === 0) return false;
  const bare = pagesWithoutProductData(consulted);
  if (bare.length === 0) return false;
  const useless = await hostsNotNeedingRender(knex, [...new Set(bare.map((p) => new URL(p.url).host))]);
  const urls = [...new Set(bare.filter((p) => !useless.has(new URL(p.url).host)).map((p) => p.url))];
  if (urls.length === 0) return false;
  if (!settings.enabled) {
    const ev = evidence as Partial<Evidence> | null;
    if (ev) (ev.problems ??= []).push(`not rendered (${settings.unavailable ?? 'rendering is off'}): ${urls.join(', ')}`);
    if (!result.review_info.flags.includes('not_rendered')) result.review_info.flags.push('not_rendered');
    return false;
  }
  return (await requestRenders(knex, row.job_id, row.row_index, urls, settings.maxAgeS)).length > 0;
}

/**
 * Marks the fields whose every cited source is a rendered page as read by rendering
 * (`review_info.field_methods[field] = 'rendered'`). No I/O.
 */
export function markRenderedMethods(result: EnrichmentResult, consulted: FetchedPage[]): void {
  const rendered = new Set(consulted.filter((p) => p.rendered).flatMap((p) => [p.url, p.final_url]));
  if (rendered.size === 0) return;
  for (const [field, sources] of Object.entries(result.after_data.sources)) {
    if (Array.isArray(sources) && sources.length > 0 && sources.every((s) => rendered.has(String(s)))) result.review_info.field_methods[field] = 'rendered';
  }
}
