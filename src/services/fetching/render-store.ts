import type { Knex } from 'knex';
import type { RenderStore, StoredRender } from '../../enrichment/providers/fetch-state';
import type { RenderedPage } from '../../enrichment/providers/renderer';

/**
 * Rendered pages in PostgreSQL (`page_renders`, migration 20261127080000_live_fetch), shared by
 * every worker: a row asks for a URL to be rendered (`requested`), the render activity stores the
 * DOM and screenshot (`rendered`) or the error (`failed`), and the fetcher serves a fresh
 * rendered DOM in place of the static page. Per host, `fetch_hosts.render_needed` remembers
 * whether rendering found product data the static HTML lacked.
 */

/**
 * Asks for `urls` to be rendered for a row: a URL with no rendering yet, or one older than
 * `maxAgeS`, is (re)marked `requested` for this job and row.
 * @returns the URLs now requested (the others were rendered or requested recently)
 */
export async function requestRenders(knex: Knex, jobId: string, rowIndex: number, urls: string[], maxAgeS: number): Promise<string[]> {
  if (urls.length === 0) return [];
  const { rows } = await knex.raw<{ rows: Array<{ url: string }> }>(
    `INSERT INTO page_renders AS r (url, status, job_id, row_index, requested_at)
     SELECT u, 'requested', ?::uuid, ?, now() FROM unnest(?::text[]) AS u
     ON CONFLICT (url) DO UPDATE SET status = 'requested', job_id = excluded.job_id, row_index = excluded.row_index,
       requested_at = now(), html = NULL, screenshot = NULL, error = NULL, rendered_at = NULL
     WHERE r.requested_at < now() - make_interval(secs => ?)
     RETURNING r.url`,
    [jobId, rowIndex, urls, maxAgeS],
  );
  return rows.map((r) => r.url);
}

/** The URLs a row asked to render that are still waiting. */
export async function pendingRenders(knex: Knex, jobId: string, rowIndex: number): Promise<string[]> {
  const rows = await knex('page_renders').where({ job_id: jobId, row_index: rowIndex, status: 'requested' }).orderBy('url').select('url');
  return rows.map((r: { url: string }) => r.url);
}

/** Stores a rendering (or why it failed) and remembers for the host whether rendering found product data. */
export async function saveRender(knex: Knex, url: string, outcome: { page: RenderedPage; productData: boolean } | { error: string }): Promise<void> {
  if ('error' in outcome) {
    await knex('page_renders')
      .where({ url })
      .update({ status: 'failed', error: outcome.error.slice(0, 2000), rendered_at: new Date() });
    return;
  }
  const { page } = outcome;
  await knex('page_renders')
    .where({ url })
    .update({ status: 'rendered', html: page.html, screenshot: page.screenshot, error: null, rendered_at: new Date(page.rendered_at) });
  await knex.raw(`INSERT INTO fetch_hosts (host, render_needed) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET render_needed = excluded.render_needed`, [
    new URL(url).host,
    outcome.productData,
  ]);
}

/** A rendering of `url` made within `maxAgeS`, if any (the engine reads it through {@link renderStore}). */
export async function loadRender(knex: Knex, url: string, maxAgeS: number): Promise<StoredRender | null> {
  const row = await knex('page_renders')
    .where({ url, status: 'rendered' })
    .where('rendered_at', '>', knex.raw('now() - make_interval(secs => ?)', [maxAgeS]))
    .first('url', 'html', 'screenshot', 'rendered_at');
  if (!row) return null;
  return {
    url: row.url,
    final_url: row.url,
    status: 200,
    html: row.html,
    screenshot: Buffer.from(row.screenshot ?? []),
    rendered_at: new Date(row.rendered_at).toISOString(),
  };
}

/** Hosts among `hosts` where rendering was tried and found no product data the static page lacked (`render_needed` false). */
export async function hostsNotNeedingRender(knex: Knex, hosts: string[]): Promise<Set<string>> {
  if (hosts.length === 0) return new Set();
  const rows = await knex('fetch_hosts').whereIn('host', hosts).where('render_needed', false).select('host');
  return new Set(rows.map((r: { host: string }) => r.host));
}

/** The engine's {@link RenderStore} (src/enrichment/providers/fetch-state.ts) over `page_renders`: {@link loadRender}. */
export function renderStore(knex: Knex): RenderStore {
  return { loadRender: (url, maxAgeS) => loadRender(knex, url, maxAgeS) };
}
