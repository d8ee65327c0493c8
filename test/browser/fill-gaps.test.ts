/**
 * Fill the gaps in Chromium, end to end against real PostgreSQL and a Temporal test
 * server whose worker runs the enrichment job with a test engine (it finds each item's brand):
 * the grid filtered to "missing brand" → the action shows the item count and the credits → the
 * job runs (its progress page, then its review page) → approve, apply → the completeness page
 * shows the share of brand filled before and after, and it went up.
 */
import type { EnrichInput, EnrichmentEngine, EnrichmentResult, Evidence } from '../../src/enrichment/types';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { createReviewFixture, type ReviewFixture } from './fixture';

/** Released by the test once it has seen the job's progress page. */
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => {
  release = resolve;
});

const NO_EVIDENCE: Evidence = { queries: [], search_results: [], documents: [] };

/** The test engine: the fake engine's research, with each item's brand found ("Brand of <sku>"), held until {@link release}. */
function brandEngine(): EnrichmentEngine {
  const base = fakeEngine();
  const engine: EnrichmentEngine = {
    research: (input) => base.research(input),
    async extract(input: EnrichInput) {
      const item = input.item;
      const result: EnrichmentResult = {
        original_data: item,
        after_data: {
          ...item,
          brand: `Brand of ${String(item.sku)}`,
          sources: { brand: ['https://example.com/brands'] },
          source_explanations: { brand: 'the brand list' },
        },
        all_sources: ['https://example.com/brands'],
        review_info: {
          reasoning: 'found',
          confidence: 'high',
          flags: [],
          field_issues: [],
          field_confidence: { brand: 'high' },
          field_methods: { brand: 'jsonld' },
        },
      };
      return { result, usage: { search_calls: 1, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 } };
    },
    async enrich(input: EnrichInput) {
      await held;
      const { result, usage } = await engine.extract(input, NO_EVIDENCE);
      return { result, evidence: NO_EVIDENCE, usage };
    },
  };
  return engine;
}

describe('fill the gaps in Chromium', () => {
  const TASK_QUEUE = 'test-browser-fill-gaps';
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: brandEngine() },
    async setUp({ env }) {
      org = await createTestOrg('fill gaps org');
      fx = await createReviewFixture(org.organizationId);
      return testApiFor(env, TASK_QUEUE);
    },
    tearDown: () => release(),
    timeoutMs: 180_000,
  });

  test('grid "missing brand" → count and credits → job with progress → review → apply → completeness before and after', async () => {
    const { page, base } = ui;
    const gridUrl = `${base}/dashboard/catalogs/${fx.catalogId}/items?missing=brand`;
    await page.goto(gridUrl);
    await page.type('#credential', org.apiKey);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(page.url()).toBe(gridUrl);
    await Promise.all([page.waitForNavigation(), page.click('#fill-gaps-link')]);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/catalogs/${fx.catalogId}/items/fill-gaps`);
    // Three items miss a brand (the mouse has one); 1 credit per item.
    expect(await page.$eval('#fill-count', (e) => e.textContent)).toBe('3');
    expect(await page.$eval('#fill-credits-value', (e) => e.textContent)).toBe('3');
    expect(await page.$$eval('input[name=field]', (els) => els.map((e) => [e.getAttribute('value'), (e as unknown as { checked: boolean }).checked]))).toEqual([
      ['brand', true],
    ]);
    expect(await page.$eval('#fill-form', (e) => e.textContent)).toContain('1 of 4 (25%)');
    await shotAndCheck(page, 'fill-gaps.png');

    // Start: the progress page follows the job while the engine holds the items.
    await Promise.all([page.waitForNavigation(), page.click('#fill-submit')]);
    expect(new URL(page.url()).pathname).toMatch(/\/items\/fill-gaps\/[0-9a-f-]{36}$/);
    const jobId = new URL(page.url()).pathname.split('/').pop() as string;
    expect(await page.$eval('#fill-progress', (e) => e.textContent)).toMatch(/0 of 3 items enriched/);
    const job = await testKnex()('enrichment_jobs').where({ id: jobId }).first('config', 'total_items');
    expect(job.total_items).toBe(3);
    expect(job.config.output_schema.map((f: { name: string }) => f.name)).toEqual(['brand']);
    // The items are the catalog's own rows, narrowed to the grid's selection (no inline items).
    expect(job.config).toMatchObject({ source_catalog_id: fx.catalogId, catalog_id: fx.catalogId });
    expect(job.config).not.toHaveProperty('items');
    await shotAndCheck(page, 'fill-gaps-progress.png');
    release();
    // The page reloads itself and lands in the job's review page when the job is done.
    await page.waitForURL(`${base}/dashboard/catalogs/${fx.catalogId}/activities/${jobId}`, { timeout: 60_000 });
    expect(await page.$$eval('tbody.change', (els) => els.length)).toBe(3);

    await Promise.all([page.waitForNavigation(), page.click('#bulk-actions button.approve')]);
    await page.click('#apply-button');
    await page.waitForSelector('#apply-result strong', { timeout: 60_000 });
    expect(await page.$eval('#apply-result', (e) => e.textContent)).toMatch(/Applied 3\b/);
    const rows: Array<{ brand: string }> = await testKnex()('catalog_items')
      .where({ catalog_id: fx.catalogId })
      .select(testKnex().raw("data->>'brand' AS brand"));
    expect(rows.map((r) => r.brand).sort()).toEqual(['Brand of CB-400', 'Brand of HD-300', 'Brand of KB-100', 'Logi']);

    // The completeness page: brand filled before 1 of 4, now 4 of 4.
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/completeness`);
    const row = `#fill-gaps-outcomes table[data-activity-id="${jobId}"] tr[data-field="brand"]`;
    expect(await page.$eval(`${row} td.before`, (e) => e.textContent)).toBe('1 of 4 (25%)');
    expect(await page.$eval(`${row} td.after`, (e) => e.textContent)).toBe('4 of 4 (100%)');
    await shotAndCheck(page, 'fill-gaps-completeness.png');
  }, 180_000);

  test('the bulk action "enrich": chosen fields on every item of the filter, followed to its review page; classify needs a taxonomy', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/bulk?missing=color`);
    expect(await page.$eval('#bulk-count', (e) => e.textContent)).toBe('4');
    expect(await page.$eval('#bulk-enrich-credits', (e) => e.textContent)).toBe('4');
    expect(await page.$('#bulk-classify')).toBeNull(); // the fixture catalog has no taxonomy
    await page.check('#bulk-enrich-form input[name=field][value=color]');
    await Promise.all([page.waitForNavigation(), page.click('#bulk-enrich-submit')]);
    await page.waitForURL(/\/activities\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    const jobId = new URL(page.url()).pathname.split('/').pop() as string;
    const job = await testKnex()('enrichment_jobs').where({ id: jobId }).first('config', 'total_items', 'catalog_id');
    expect(job).toMatchObject({ total_items: 4, catalog_id: fx.catalogId });
    expect(job.config.output_schema.map((f: { name: string }) => f.name)).toEqual(['color']);
    const token = await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '');
    const classify = await page.evaluate(
      async ([u, t]) =>
        (
          await fetch(u, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ csrf_token: t, query: 'missing=color', classify: '1' }).toString(),
          })
        ).status,
      [`/dashboard/catalogs/${fx.catalogId}/items/bulk/enrich`, token] as const,
    );
    expect(classify).toBe(422);
  }, 120_000);

  test('without a "missing" filter there is nothing to fill (422); another organization’s catalog is a 403', async () => {
    const { page, base } = ui;
    expect((await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/items/fill-gaps`))?.status()).toBe(422);
    const other = await createTestOrg('fill gaps other org');
    const otherFx = await createReviewFixture(other.organizationId);
    expect((await page.goto(`${base}/dashboard/catalogs/${otherFx.catalogId}/items/fill-gaps?missing=brand`))?.status()).toBe(403);
  });
});
