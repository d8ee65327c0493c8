import type { Server } from 'node:http';
import fc from 'fast-check';
import request from 'supertest';
import { buildRegistry } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { RouteDef } from '../../src/routes/registry';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { organizationFingerprint } from '../helpers/org-fingerprint';

/**
 * Property-based fuzzing of every route in the OpenAPI document: requests built from
 * each route's own schemas with hostile values in every place (NUL and unpaired surrogates,
 * numbers past every range, prototype keys, wrong types, deep nesting, ids of another
 * organization). Properties: no 5xx; every error body has the documented shape; nothing of
 * another organization changes. Deterministic by default (FUZZ_SEED, FUZZ_RUNS_PER_ROUTE to vary).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/**
 * Generated requests per route. Every route gets exactly this many: there is no time limit that
 * could cut a run short and still pass, and no route left to chance.
 */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 15);

/** JSON-Schema-ish view of a TypeBox schema (the fields the generator reads). */
interface SchemaView {
  type?: string | string[];
  properties?: Record<string, SchemaView>;
  items?: SchemaView;
  enum?: unknown[];
  anyOf?: SchemaView[];
}

const hostileStrings = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  '99999999999999999999',
  '1e309',
  '-1',
  'NaN',
  'null',
  '%00',
  "'; DROP TABLE catalogs; --",
  'ﬀ\u202e',
  'a'.repeat(3000),
];

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...hostileStrings),
  fc.constantFrom(1e20, -1, 0, 0.5, -0.5, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63), 1e308, null, true, false),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([], {}, [null], { __proto__: { polluted: true } }, JSON.parse('{"__proto__": {"polluted": true}}')) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 4, withNullPrototype: true }) },
  { weight: 1, arbitrary: fc.constant(JSON.parse('['.repeat(150) + ']'.repeat(150))) },
);

/** A plausible value of a schema (so requests get past validation and reach the services). */
function plausible(s: SchemaView | undefined, ids: string[], depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 3) return fc.constant('x');
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  if (s.anyOf?.length) return fc.oneof(...s.anyOf.map((a) => plausible(a, ids, depth + 1)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return fc.oneof(fc.constantFrom('x', 'sku-1', 'name', 'brand', 'https://shop.example.com/p/1'), fc.constantFrom(...ids));
    case 'integer':
      return fc.integer({ min: 0, max: 5 });
    case 'number':
      return fc.double({ min: 0, max: 100, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(plausible(s.items, ids, depth + 1), { maxLength: 3 });
    case 'object':
      return objectOf(s, ids, depth + 1);
    default:
      return fc.oneof(fc.constant('x'), fc.constant({}));
  }
}

/** An object over a schema's properties: a random subset, each plausible or hostile. */
function objectOf(s: SchemaView | undefined, ids: string[], depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(s?.properties ?? {});
  if (props.length === 0) return fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'x\u0000'), hostileValue, { maxKeys: 3 });
  const entries = props.map(([name, sub]) => fc.option(fc.tuple(fc.constant(name), fc.oneof(plausible(sub, ids, depth), hostileValue)), { nil: undefined }));
  return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs.filter((p): p is [string, unknown] => p !== undefined)));
}

/** `encodeURIComponent`, except that a lone surrogate (which it refuses) becomes its raw WTF-8 escape. */
function encodeSegment(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

/** A request for one route: path parameters from known ids (own, another organization's, random) or hostile strings. */
function requestFor(route: RouteDef, ids: { own: string[]; other: string[] }): fc.Arbitrary<{ path: string; query: Record<string, unknown>; body: unknown }> {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  // Path segments, already encoded: ids, hostile strings, and raw escapes of invalid UTF-8.
  const idArb = fc.oneof(
    fc.constantFrom(...ids.own),
    fc.constantFrom(...ids.other),
    fc.uuid(),
    fc.constantFrom(...hostileStrings.filter((h) => h !== '').map(encodeSegment)),
    fc.constantFrom('%ED%A0%80', '%E0%A4%A', '%FF', '%00', '..', '%2e%2e'),
  );
  const body = route.body
    ? fc.oneof({ weight: 4, arbitrary: objectOf(route.body as SchemaView, ids.own) }, { weight: 1, arbitrary: hostileValue })
    : fc.constant(undefined);
  return fc
    .record({
      params: fc.tuple(...names.map(() => idArb)),
      query: route.query ? objectOf(route.query as SchemaView, ids.own) : fc.constant({}),
      body,
    })
    .map(({ params, query, body: b }) => {
      let path = `/api${route.path}`;
      names.forEach((n, i) => (path = path.replace(`:${n}`, params[i])));
      return { path, query, body: b };
    });
}

let server: Server;
let own: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const ids = { own: [] as string[], other: [] as string[] };

/** Seeds an organization with a catalog, items, a snapshot and a review activity; returns their ids. */
async function seed(org: Awaited<ReturnType<typeof createTestOrg>>): Promise<string[]> {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = await request(server)
    .post(`/api/public/catalogs/${catalogId}/items/bulk`)
    .set(org.auth)
    .send({
      items: [
        { sku: 'f-1', title: 'Boots', price: 10 },
        { sku: 'f-2', title: 'Shoes' },
      ],
    });
  expect(items.status).toBe(200);
  const listed = await request(server).get(`/api/public/catalogs/${catalogId}/items`).set(org.auth);
  const itemIds = (listed.body as { items: Array<{ id: string }> }).items.map((i) => i.id);
  const snapshot = await request(server).post(`/api/public/catalogs/${catalogId}/snapshots`).set(org.auth).send({ reason: 'fuzz seed' });
  const activity = await request(server)
    .post(`/api/public/catalogs/${catalogId}/activities`)
    .set(org.auth)
    .send({ type: 'custom_transform', description: 'fuzz', status: 'created', staged_changes: [] });
  const found = [
    catalogId,
    ...itemIds,
    (snapshot.body as { id?: string; snapshot_id?: string }).id ?? '',
    (activity.body as { activity_id?: string }).activity_id ?? '',
  ];
  return found.filter(Boolean);
}

beforeAll(async () => {
  server = testApp(acceptingJobs).listen(0);
  own = await createTestOrg('fuzz org');
  other = await createTestOrg('fuzz bystander');
  ids.own = await seed(own);
  ids.other = await seed(other);
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

it('answers every generated request without a 5xx, with a documented error body, and leaves other organizations alone', async () => {
  const routes = buildRegistry({ config: loadConfig(), knex: testKnex(), jobRunner: acceptingJobs }).routes.filter((r) => !r.hidden);
  expect(routes.length).toBeGreaterThan(30);
  const before = await organizationFingerprint(testKnex(), other.organizationId);
  // The fingerprint covers every table that holds organization data, these among them.
  expect(before.tables).toEqual(
    expect.arrayContaining([
      'catalogs',
      'catalog_items',
      'catalog_schemas',
      'catalog_snapshots',
      'review_activities',
      'staged_changes',
      'flows',
      'flow_runs',
      'enrichment_jobs',
      'enrichment_templates',
      'catalog_imports',
      'image_runs',
      'hosted_media',
      'api_keys',
      'dashboard_sessions',
      'organizations',
    ]),
  );
  const cases = new Map<string, number>();
  const statuses: Record<number, number> = {};
  for (const [i, route] of routes.entries()) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    await fc.assert(
      fc.asyncProperty(requestFor(route, ids), async (req) => {
        cases.set(name, (cases.get(name) ?? 0) + 1);
        const agent = request(server);
        let call = agent[route.method](req.path)
          .query(req.query as Record<string, string>)
          .set(own.auth);
        if (req.body !== undefined && route.method !== 'get' && route.method !== 'delete')
          call = call.set('Content-Type', 'application/json').send(JSON.stringify(req.body));
        const res = await call;
        statuses[Math.floor(res.status / 100)] = (statuses[Math.floor(res.status / 100)] ?? 0) + 1;
        const where = `${route.method.toUpperCase()} ${req.path} → ${res.status} ${res.text.slice(0, 300)}`;
        if (res.status >= 500) throw new Error(`5xx: ${where}`);
        if (res.status >= 400) {
          const detail = (res.body as { detail?: unknown }).detail;
          const shaped =
            typeof detail === 'string' ||
            (Array.isArray(detail) &&
              detail.every(
                (d: { loc?: unknown; msg?: unknown; type?: unknown }) => Array.isArray(d.loc) && typeof d.msg === 'string' && typeof d.type === 'string',
              ));
          if (!shaped) throw new Error(`undocumented error body: ${where}`);
          if (
            res.status === 422 &&
            Array.isArray(detail) &&
            !detail.every((d: { loc: unknown[] }) => ['body', 'query', 'path', 'header'].includes(String(d.loc[0])))
          ) {
            throw new Error(`422 loc outside body/query/path/header: ${where}`);
          }
        }
      }),
      { seed: SEED + i, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
    );
  }
  console.log('fuzz', { runs_per_route: RUNS_PER_ROUTE, routes: routes.length, statuses });
  // Every route got its full share of cases.
  expect(routes.filter((r) => (cases.get(`${r.method.toUpperCase()} ${r.path}`) ?? 0) < RUNS_PER_ROUTE)).toEqual([]);
  expect((await organizationFingerprint(testKnex(), other.organizationId)).digest).toEqual(before.digest);
});
