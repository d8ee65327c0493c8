import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { COMMON_PREFIX_SHARE, commonPrefixShare, impliedLastWord, indexWordsTerm } from '../../src/services/catalog/search/common-words';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/**
 * Terms whose common last word the literal match implies (src/services/catalog/search/common-words.ts,
 * docs/large-catalogs.md "Identifiers and URLs ending in a common word"): which terms qualify,
 * when the statistics call the word common, and that the list answers exactly what matching
 * the whole term's words answers, through the typed client (packages/client).
 */

let server: Server;
let api: CatalogClient;
let a: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  server = await listenTestApp(testApp());
  a = await createTestOrg('search common words');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await closeTestKnex();
});

describe('impliedLastWord', () => {
  it('takes the last word off terms matched literally, after an ASCII separator', () => {
    expect(impliedLastWord('img.example.com/4242.JPG')).toEqual({ rest: 'img.example.com/4242.', last: 'jpg' });
    expect(impliedLastWord('https://img.example.com/55555.')).toEqual({ rest: 'https://img.example.com/', last: '55555' });
    expect(impliedLastWord('sku-12 jpg')).toEqual({ rest: 'sku-12 ', last: 'jpg' });
  });

  it('keeps it when the term is words only, has one word, or a non-ASCII separator precedes it', () => {
    expect(impliedLastWord('red shirt jpg')).toBeNull(); // no literal match: the prefix is the rule
    expect(impliedLastWord('.jpg')).toBeNull(); // no word left to match
    expect(impliedLastWord('jpg.')).toBeNull();
    expect(impliedLastWord('img·jpg.')).toBeNull(); // '·' is no separator the SQL split is known to share
  });
});

describe('search terms ending in a common word (docs/large-catalogs.md)', () => {
  let catalogId: string;
  const knex = () => testKnex();

  beforeAll(async () => {
    catalogId = await createTestCatalog(a.organizationId);
    // Enough rows holding `qzjpg*` words that the table's statistics call the prefix common,
    // whatever other suites left in this database: a quarter of the table at least.
    const others = Number((await knex()('catalog_items').count({ n: '*' }))[0].n);
    const n = Math.max(2000, Math.ceil(others / 3));
    await knex().raw(
      `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
       SELECT gen_random_uuid(), ?, 'product', 'S-' || g,
              -- five items per number: the same words, and the literal in one of them only
              jsonb_build_object('sku', 'S-' || g, 'title', CASE g % 5
                WHEN 0 THEN 'https://img.example.com/' || g / 5 || '.qzjpg'     -- the common ending
                WHEN 1 THEN 'https://img.example.com/' || g / 5 || '.qzjpgx'    -- a longer word starting with it
                WHEN 2 THEN 'https://img.example.com/' || g / 5 || 'qzjpg'      -- glued to the number: no separator
                WHEN 3 THEN 'img.example.com ' || g / 5 || ' qzjpg'             -- the words, not the literal
                ELSE 'https://img.example.com/' || g / 5 || '.png qzjpg' END), now(), now()
       FROM generate_series(1, ?) g`,
      [catalogId, n],
    );
    await knex()('catalogs').where('id', catalogId).update({ item_count: n });
    await knex().raw('ANALYZE catalog_items');
  });

  it('reads how common a prefix is from the table statistics', async () => {
    expect(await commonPrefixShare(knex(), 'qzjpg')).toBeGreaterThanOrEqual(COMMON_PREFIX_SHARE);
    expect(await commonPrefixShare(knex(), 'qzjpgnotaword')).toBe(0);
    expect(await indexWordsTerm(knex(), 'img.example.com/123.qzjpg')).toBe('img.example.com/123.');
    // A rare last word is the selective part: kept.
    expect(await indexWordsTerm(knex(), 'img.example.com/qzjpg.123')).toBeUndefined();
    expect(await indexWordsTerm(knex(), 'red qzjpg')).toBeUndefined();
  });

  it('answers each term exactly as matching all of its words does', async () => {
    const terms = [
      'img.example.com/123.qzjpg',
      'example.com/123',
      '/123.qzjp',
      '123.qzjpg',
      'com/124.qzjpgx',
      '125qzjpg',
      '126.png qzjpg',
      'img.example.com 127 qzjpg',
    ];
    for (const term of terms) {
      const whole = filterSql(catalogId, { search: term });
      const expected = (await knex().raw(`SELECT id FROM catalog_items WHERE ${whole.sql} ORDER BY created_at, id`, whole.bindings)).rows.map(
        (r: { id: string }) => r.id,
      );
      const { data, response } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
        params: { path: { catalog_id: catalogId }, query: { search: term, limit: 200 } },
      });
      expect(response.status).toBe(200);
      expect({ term, total: data?.total, ids: data?.items?.map((i) => i.id) }).toEqual({ term, total: expected.length, ids: expected.slice(0, 200) });
    }
    // The common ending was left to the literal match for the first term: the items holding it literally, a longer last word included.
    const { data } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
      params: { path: { catalog_id: catalogId }, query: { search: 'img.example.com/123.qzjpg' } },
    });
    // (Both rows were inserted in one statement: same created_at, so the page orders them by their random ids.)
    expect(data?.items?.map((i) => (i.data as { title: string }).title).sort()).toEqual([
      'https://img.example.com/123.qzjpg',
      'https://img.example.com/123.qzjpgx',
    ]);
  });
});
