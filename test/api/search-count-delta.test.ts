import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { createSearchIndexActivities } from '../../activities/search-index';
import { newId } from '../../src/lib/ids';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { foldSearchDelta } from '../../src/services/catalog/search/search-count-fold';
import { buildSearchIndex, countWithSearchIndex } from '../../src/services/catalog/search/search-count-index';
import { TEST_DATABASE_URL } from '../setup/env';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { waitUntil } from '../helpers/wait';

/**
 * The search count index's delta (migration 20261205090000; src/services/catalog/search/search-count-index.ts
 * reads it, search-count-fold.ts folds it; docs/large-catalogs.md "Search right after churn"):
 * totals counted from the index corrected by the delta must equal SQL counts after inserts,
 * updates that change words, deletes and restores, past the old 5,000-change limit; a fold must
 * leave postings equal to what a build would hold (item for item); and a process killed between
 * a write and the fold, or during the fold, loses nothing; the build activity folds instead of
 * rebuilding while the delta is at most half the index. Real PostgreSQL; the activity runs in
 * Temporal's mock activity environment.
 */

const MIN_DF = 20;
const COLORS = ['red', 'blue', 'green', 'olive'];
const KINDS = ['scarf', 'boot', 'boots', 'hat', 'sock', 'shirt'];
const TERMS = [
  'wool',
  'woo',
  'w',
  'red',
  'red wool',
  'red woo',
  'olive boot',
  'boot',
  'b',
  's',
  'scarf 1',
  'rewritten',
  'rewritten s',
  'new',
  'zeta',
  '1',
  'red 1',
];

let org: Awaited<ReturnType<typeof createTestOrg>>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  org = await createTestOrg('search count delta');
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await closeTestKnex();
});

/** Item i's data: frequent words (colors, kinds, wool), rare ones (zeta<i>), numbers. */
function item(i: number, title?: string): Record<string, unknown> {
  return {
    sku: `S-${i}`,
    title: title ?? `${COLORS[i % 4]} ${KINDS[i % 6]} ${i}`,
    material: i % 3 === 0 ? 'wool' : 'cotton',
    note: i % 40 === 0 ? `zeta${i}` : 'plain',
  };
}

/** A catalog of `n` items S-0…S-(n-1), inserted by SQL (the triggers fill the word columns), with its index built. */
async function indexedCatalog(n = 300): Promise<string> {
  const c = await createTestCatalog(org.organizationId);
  await testKnex()('catalog_items').insert(
    Array.from({ length: n }, (_, i) => ({ id: newId(), catalog_id: c, business_key: `S-${i}`, data: JSON.stringify(item(i)) })),
  );
  expect(await buildSearchIndex(testKnex(), c, { minDf: MIN_DF })).toMatchObject({ items: n });
  return c;
}

async function sqlTotal(c: string, term: string): Promise<number> {
  const where = filterSql(c, { search: term, top_level: false });
  return (await testKnex().raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows[0].n;
}

/** Every term's count from the index equals the SQL count; returns the paths and the delta rows seen. */
async function expectExact(c: string, terms = TERMS): Promise<{ index: number; rare: number; pending: number }> {
  const seen = { index: 0, rare: 0, pending: 0 };
  for (const term of terms) {
    const counted = await testKnex().transaction((trx) => countWithSearchIndex(trx, c, term), { isolationLevel: 'repeatable read' });
    if (!('total' in counted)) throw new Error(`${term}: fell back (${counted.fallback})`);
    expect([term, counted.total]).toEqual([term, await sqlTotal(c, term)]);
    seen[counted.path]++;
    seen.pending = counted.pending;
  }
  return seen;
}

/**
 * The index holds exactly what a build from the current items would (slots aside): one slot per
 * live item and none else, each `w:` token's postings the items holding the word, each `p:`
 * token's the items holding a word under the prefix that has no `w:` token.
 */
async function expectIndexMatchesItems(k: Knex, c: string): Promise<void> {
  const {
    rows: [r],
  } = await k.raw(
    `WITH slots AS (SELECT item_id, slot FROM catalog_search_slots WHERE catalog_id = :c),
          tokens AS (SELECT token FROM catalog_search_tokens WHERE catalog_id = :c),
          held AS (SELECT p.token, s.item_id FROM catalog_search_postings p, unnest(p.slots) AS x(slot), slots s
                   WHERE p.catalog_id = :c AND s.slot = x.slot),
          words AS (SELECT ci.id, w FROM catalog_items ci, unnest(tsvector_to_array(ci.search_tsv)) AS w WHERE ci.catalog_id = :c),
          expected AS (SELECT DISTINCT 'w:' || w AS token, id AS item_id FROM words WHERE 'w:' || w IN (SELECT token FROM tokens)
                       UNION
                       SELECT DISTINCT 'p:' || left(w, k), id FROM words, generate_series(1, length(w)) AS k
                       WHERE 'w:' || w NOT IN (SELECT token FROM tokens) AND 'p:' || left(w, k) IN (SELECT token FROM tokens))
     SELECT (SELECT count(*) FROM ((SELECT * FROM held EXCEPT SELECT * FROM expected) UNION ALL (SELECT * FROM expected EXCEPT SELECT * FROM held)) d)::int AS differ,
            (SELECT count(*) FROM held)::int AS held,
            (SELECT count(*) - count(DISTINCT slot) FROM slots)::int AS shared_slots,
            (SELECT count(*) FROM ((SELECT item_id FROM slots EXCEPT SELECT id FROM catalog_items WHERE catalog_id = :c)
                                   UNION ALL (SELECT id FROM catalog_items WHERE catalog_id = :c EXCEPT SELECT item_id FROM slots)) d)::int AS slot_mismatch`,
    { c },
  );
  expect(r).toMatchObject({ differ: 0, shared_slots: 0, slot_mismatch: 0 });
  expect(r.held).toBeGreaterThan(100);
}

async function deltaRows(c: string): Promise<number> {
  return Number((await testKnex()('catalog_search_delta').where('catalog_id', c).count({ n: '*' }))[0].n);
}

/** Spawns test/fixtures/search-delta-child.ts in `mode` on catalog `c` and waits for `marker` on its output. */
async function child(mode: string, c: string, marker: string): Promise<{ proc: ChildProcess; output: () => string; appName: string }> {
  const appName = `search-delta-${mode}-${c.slice(0, 8)}`;
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../fixtures/search-delta-child.ts'), mode, c], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, PGAPPNAME: appName, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  if (marker) await waitUntil(() => out.includes(marker) || proc.exitCode !== null, `child ${mode}: ${marker}`, 120_000);
  if (marker && !out.includes(marker)) throw new Error(`child ${mode} exited: ${out}`);
  return { proc, output: () => out, appName };
}

/** SIGKILLs `proc` and waits until its database sessions are gone (their transactions rolled back). */
async function kill(proc: ChildProcess, appName: string): Promise<void> {
  proc.kill('SIGKILL');
  await testKnex().raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?', [appName]);
  await waitUntil(
    async () => Number((await testKnex().raw('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ?', [appName])).rows[0].n) === 0,
    'killed sessions gone',
  );
}

describe('search count index delta', () => {
  it('counts exactly from the delta after inserts, word changes and deletes, then folds into what a build holds', async () => {
    const c = await indexedCatalog();
    const k = testKnex();
    // New items, words changed (a frequent word removed, a new one added), items deleted.
    await k('catalog_items').insert(
      Array.from({ length: 40 }, (_, i) => ({ id: newId(), catalog_id: c, business_key: `N-${i}`, data: JSON.stringify(item(1000 + i, `red wool new ${i}`)) })),
    );
    await k.raw(
      `UPDATE catalog_items SET data = data || '{"title": "rewritten scarf"}' WHERE catalog_id = ? AND business_key IN ('S-0', 'S-4', 'S-8', 'S-12', 'S-16')`,
      [c],
    );
    await k.raw(`UPDATE catalog_items SET data = data || '{"material": "silk"}' WHERE catalog_id = ? AND business_key LIKE 'S-3%'`, [c]);
    await k('catalog_items').where('catalog_id', c).whereIn('business_key', ['S-1', 'S-2', 'S-3', 'N-5']).delete();
    // A write that changes no word logs nothing.
    const before = await deltaRows(c);
    await k.raw('UPDATE catalog_items SET current_version = current_version + 1 WHERE catalog_id = ?', [c]);
    expect(await deltaRows(c)).toBe(before);
    const seen = await expectExact(c);
    expect(seen.index).toBeGreaterThan(8);
    expect(seen.rare).toBeGreaterThan(0);
    expect(seen.pending).toBeGreaterThan(50);

    const folded = await foldSearchDelta(k, c);
    expect(folded).toMatchObject({ added: 39, removed: 3 });
    expect(await deltaRows(c)).toBe(0);
    expect((await expectExact(c)).pending).toBe(0);
    await expectIndexMatchesItems(k, c);
    // A deleted item inserted again, then a second fold: still what a build holds.
    await k('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'S-1', data: JSON.stringify(item(1)) });
    await k('catalog_items').where({ catalog_id: c, business_key: 'N-7' }).delete();
    await expectExact(c);
    expect(await foldSearchDelta(k, c)).toMatchObject({ added: 1, removed: 1 });
    await expectIndexMatchesItems(k, c);
    expect(await foldSearchDelta(k, c)).toMatchObject({ rows: 0, items: 0 });
  });

  it('leaves a word every item holds out of the intersection, exact while items without it are in the delta and after their fold', async () => {
    const c = await indexedCatalog(); // every item's SKU S-<i> holds the word "s"
    const k = testKnex();
    const df = async () => (await k('catalog_search_tokens').where({ catalog_id: c, token: 'w:s' }).first('df')).df as number;
    const indexed = async () => (await k('catalog_search_index').where('catalog_id', c).first('item_count')).item_count as number;
    expect([await df(), await indexed()]).toEqual([300, 300]);
    const terms = ['s red', 's wool', 's red wool', 's plain', 's s', 'red s 1', 'wool s b'];
    expect((await expectExact(c, terms)).index).toBe(terms.length);
    // Items without the word: two new ones, and S-4 ("red sock 4") whose SKU loses it.
    await k('catalog_items').insert(
      ['N-1', 'N-2'].map((sku, i) => ({ id: newId(), catalog_id: c, business_key: sku, data: JSON.stringify({ sku, title: `red wool plain ${i}` }) })),
    );
    await k.raw(`UPDATE catalog_items SET data = data || '{"sku": "T-4"}' WHERE catalog_id = ? AND business_key = 'S-4'`, [c]);
    expect((await expectExact(c, terms)).pending).toBe(3);
    // Folded: the word is no longer in every item, so its postings narrow the count again.
    expect(await foldSearchDelta(k, c)).toMatchObject({ added: 2, removed: 0 });
    expect([await df(), await indexed()]).toEqual([299, 302]);
    expect((await expectExact(c, terms)).index).toBe(terms.length);
  });

  it('stays exact and fast past 5,000 changed items (no fallback), and through a fold of all of them', async () => {
    const c = await indexedCatalog(2000);
    const k = testKnex();
    // Every item rewritten three times (6,000 delta rows), a quarter then deleted, 500 inserted.
    for (const word of ['alpha', 'beta', 'gamma']) {
      await k.raw(`UPDATE catalog_items SET data = data || jsonb_build_object('title', ? || ' ' || (data->>'title')) WHERE catalog_id = ?`, [word, c]);
    }
    await k.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND split_part(business_key, '-', 2)::int % 4 = 1`, [c]);
    await k('catalog_items').insert(
      Array.from({ length: 500 }, (_, i) => ({ id: newId(), catalog_id: c, business_key: `N-${i}`, data: JSON.stringify(item(5000 + i)) })),
    );
    const terms = [...TERMS, 'gamma', 'gamma red', 'alpha wool', 'beta'];
    const seen = await expectExact(c, terms);
    expect(seen.pending).toBeGreaterThan(6000);
    const t = performance.now();
    await expectExact(c, ['red wool', 'wool', 'b']);
    expect(performance.now() - t).toBeLessThan(30_000); // liveness on a loaded machine, not a speed figure
    const folded = await foldSearchDelta(k, c);
    expect(folded).toMatchObject({ items: 2500, added: 500, removed: 500 });
    await expectExact(c, terms);
    await expectIndexMatchesItems(k, c);
  });

  it('keeps a write that commits after the fold took its snapshot for the next fold', async () => {
    const c = await indexedCatalog(120);
    const k = testKnex();
    await k('catalog_items').where({ catalog_id: c, business_key: 'S-5' }).delete();
    const trx = await k.transaction();
    try {
      await trx('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'T-1', data: JSON.stringify({ sku: 'T-1', title: 'red wool' }) });
      expect(await foldSearchDelta(k, c)).toMatchObject({ items: 1, removed: 1 });
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect(await deltaRows(c)).toBe(1);
    await expectExact(c);
    expect(await foldSearchDelta(k, c)).toMatchObject({ items: 1, added: 1 });
    await expectIndexMatchesItems(k, c);
  });

  it('loses nothing when the writer or the fold is killed: the delta commits and rolls back with the write, the fold whole or not at all', async () => {
    const c = await indexedCatalog(200);
    const k = testKnex();
    const state = async () => ({
      slots: await k('catalog_search_slots').where('catalog_id', c).orderBy('item_id').pluck('slot'),
      postings: (
        await k.raw("SELECT md5(string_agg(token || blk || slots::text, ',' ORDER BY token, blk)) AS h FROM catalog_search_postings WHERE catalog_id = ?", [c])
      ).rows[0].h,
      index: await k('catalog_search_index').where('catalog_id', c).first('logged', 'next_slot', 'item_count'),
    });

    // Killed inside its write transaction: nothing of it, neither items nor delta.
    const open = await child('write-open', c, 'written');
    await kill(open.proc, open.appName);
    expect(await deltaRows(c)).toBe(0);
    expect(await sqlTotal(c, 'rewritten')).toBe(0);
    await expectExact(c);

    // Killed right after its write committed, before any fold: the delta is there and counts are exact.
    const committed = await child('write-commit', c, 'committed');
    await kill(committed.proc, committed.appName);
    expect(await deltaRows(c)).toBe(60 + 20 + 30);
    expect(await sqlTotal(c, 'rewritten')).toBe(60);
    await expectExact(c);

    // A fold killed midway (held at its postings write by a lock this test holds): rolled back whole.
    const unfolded = await state();
    const blocker = await k.transaction();
    let folding: Awaited<ReturnType<typeof child>> | undefined;
    try {
      await blocker.raw('LOCK TABLE catalog_search_postings IN SHARE MODE');
      folding = await child('fold', c, '');
      await waitUntil(
        async () =>
          Number(
            (
              await k.raw(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock' AND query LIKE '%catalog_search_postings%'",
                [folding!.appName],
              )
            ).rows[0].n,
          ) === 1,
        'fold waiting at its postings write',
        120_000,
      );
      await kill(folding.proc, folding.appName);
    } finally {
      await blocker.rollback();
    }
    expect(folding.output()).not.toContain('folded');
    expect(await state()).toEqual(unfolded);
    expect(await deltaRows(c)).toBe(110);
    await expectExact(c);

    // The next fold takes it all in.
    expect(await foldSearchDelta(k, c)).toMatchObject({ items: 110, added: 30, removed: 20 });
    expect(await deltaRows(c)).toBe(0);
    await expectExact(c);
    await expectIndexMatchesItems(k, c);
  });

  it('the build activity folds an index that only needs catching up, and rebuilds one whose delta is over half its items', async () => {
    const c = await indexedCatalog(200);
    const k = testKnex();
    const activities = createSearchIndexActivities({ knex: k });
    const builtAt = async () => (await k('catalog_search_index').where('catalog_id', c).first('built_at')).built_at as Date;
    const first = await builtAt();
    await k.raw(`UPDATE catalog_items SET data = data || '{"title": "rewritten wool"}' WHERE catalog_id = ? AND split_part(business_key, '-', 2)::int < 40`, [
      c,
    ]);
    const folded = await new MockActivityEnvironment().run(activities.buildSearchIndex, c);
    expect(folded).toMatchObject({ catalog_id: c, items: 200, folded: 40, words_caught_up: 0 });
    expect(await builtAt()).toEqual(first);
    expect(await deltaRows(c)).toBe(0);
    await expectIndexMatchesItems(k, c);
    // 120 of 200 items changed: rebuilt.
    await k.raw(`UPDATE catalog_items SET data = data || '{"title": "again red"}' WHERE catalog_id = ? AND split_part(business_key, '-', 2)::int < 120`, [c]);
    const rebuilt = await new MockActivityEnvironment().run(activities.buildSearchIndex, c);
    expect(rebuilt).not.toHaveProperty('folded');
    expect(await builtAt()).not.toEqual(first);
    expect(await deltaRows(c)).toBe(0);
    await expectExact(c);
  });
});
