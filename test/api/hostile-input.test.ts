import crypto from 'node:crypto';
import net from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { sendWebhookOnce, WEBHOOK_ADDRESS_REFUSED, webhookUrlProblem } from '../../src/services/enrichment/webhooks';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf, ValidationErrorBody } from '../helpers/wire';

/**
 * Regression tests defects 1, 2 and 4: inputs that used to answer 500 (NUL, lone
 * surrogates, huge offsets, prototype keys), webhook URLs that reach internal addresses, and
 * non-JSON bodies read as `{}`.
 */

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  server = testApp().listen(0);
  org = await createTestOrg('hostile input org');
  catalogId = await createTestCatalog(org.organizationId);
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

/** The `loc`s of a 422 body. */
function locs(res: request.Response): Array<Array<string | number>> {
  expect(res.status).toBe(422);
  return bodyOf<ValidationErrorBody>(res).detail.map((d) => d.loc);
}

describe('text PostgreSQL cannot store (defect 1)', () => {
  it('refuses NUL in a body string with a 422 naming the field', async () => {
    const res = await request(server)
      .post('/api/public/catalogs')
      .set(org.auth)
      .send({ name: 'bad\u0000name', unique_id_field: 'sku', schema_definition: { type: 'object', properties: { sku: { type: 'string' } } } });
    expect(locs(res)).toEqual([['body', 'name']]);
  });

  it('refuses a lone surrogate in a nested value and NUL in an item data key', async () => {
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({
        items: [
          { sku: 'a-1', title: 'ok' },
          { sku: 'a-2', title: 'half \ud800 pair' },
          { sku: 'a-3', ['ti\u0000tle']: 'x' },
        ],
      });
    expect(locs(res)).toEqual([
      ['body', 'items', 1, 'title'],
      ['body', 'items', 2, 'ti\u0000tle'],
    ]);
    const [{ n }] = await testKnex()('catalog_items').where({ catalog_id: catalogId }).count({ n: '*' });
    expect(Number(n)).toBe(0);
  });

  it('accepts a proper surrogate pair (an emoji) in the same place', async () => {
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({ items: [{ sku: 'emoji-1', title: 'boots \ud83e\udd7e' }] });
    expect(res.status).toBe(200);
  });

  it('refuses JSON nested deeper than 100 levels instead of overflowing the stack', async () => {
    const deep: unknown = JSON.parse('['.repeat(3000) + ']'.repeat(3000));
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({ items: [{ sku: 'deep-1', nested: deep }] });
    expect(locs(res)).toEqual([['body']]);
    const shallow = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({ items: [{ sku: 'deep-2', nested: JSON.parse('['.repeat(20) + ']'.repeat(20)) }] });
    expect(shallow.status).toBe(200);
  });

  it('refuses NUL in query parameters', async () => {
    const res = await request(server).get(`/api/public/catalogs/${catalogId}/items`).query({ search: 'x\u0000y' }).set(org.auth);
    expect(locs(res)).toEqual([['query', 'search']]);
  });

  it.each([
    ['items', () => `/api/public/catalogs/${catalogId}/items`],
    ['raw items', () => `/api/public/catalogs/${catalogId}/raw-items`],
    ['catalogs', () => '/api/public/catalogs'],
    ['snapshots', () => `/api/public/catalogs/${catalogId}/snapshots`],
    ['jobs', () => '/api/public/enrich/jobs'],
  ])('answers 422 for offsets past any list on %s', async (_name, path) => {
    for (const offset of ['99999999999999999999', '1e309']) {
      const res = await request(server).get(path()).query({ offset }).set(org.auth);
      expect(locs(res)).toEqual([['query', 'offset']]);
    }
  });

  it('sorts by data keys named like Object.prototype members instead of failing', async () => {
    for (const sortField of ['__proto__', 'constructor', 'toString']) {
      const res = await request(server).get(`/api/public/catalogs/${catalogId}/items`).query({ sort_field: sortField }).set(org.auth);
      expect(res.status).toBe(200);
    }
  });
});

describe('one bad item in a bulk request (defect 3)', () => {
  it('reports an item whose key the unique index cannot hold, and writes the others', async () => {
    const huge = crypto.randomBytes(6000).toString('base64');
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({ items: [{ sku: 'defect3-ok', title: 'fine' }, { sku: huge }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, items_created: 1, items_failed: 1, errors: [{ index: 1 }] });
    const written = await testKnex()('catalog_items').where({ catalog_id: catalogId, business_key: 'defect3-ok' }).first('id');
    expect(written).toBeDefined();
  });
});

describe('non-JSON bodies (defect 4)', () => {
  it('answers 415 for a text/plain body and creates nothing', async () => {
    const before = await testKnex()('catalogs').where({ organization_id: org.organizationId }).count({ n: '*' });
    const res = await request(server).post(`/api/public/catalogs/${catalogId}/duplicate`).set(org.auth).set('Content-Type', 'text/plain').send('name=copy');
    expect(res.status).toBe(415);
    expect(bodyOf<{ detail: string }>(res).detail).toMatch(/application\/json/);
    const after = await testKnex()('catalogs').where({ organization_id: org.organizationId }).count({ n: '*' });
    expect(Number(after[0].n)).toBe(Number(before[0].n));
  });

  it('answers 415 for a urlencoded form', async () => {
    const res = await request(server).post('/api/public/catalogs').set(org.auth).type('form').send({ name: 'x' });
    expect(res.status).toBe(415);
  });
});

describe('webhook URLs that reach internal addresses (defect 2)', () => {
  const internal = [
    'https://127.0.0.1:8443/hook',
    'https://[::1]/hook',
    'https://0x7f000001/hook',
    'https://2130706433/hook',
    'https://127.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://localhost/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
  ];

  it.each(internal)('refuses %s at request time with a 422', async (url) => {
    expect(webhookUrlProblem(url, false)).not.toBeNull();
    const res = await request(server)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }], async_mode: true, webhook_url: url });
    expect(locs(res)).toEqual([['body', 'webhook_url']]);
  });

  it('accepts a public https URL', () => {
    expect(webhookUrlProblem('https://hooks.example.com/catalog', false)).toBeNull();
  });

  it('never connects to a host name that resolves to a loopback address, and records a generic reason', async () => {
    let connections = 0;
    const listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as net.AddressInfo;
    try {
      const outcome = await sendWebhookOnce(
        {
          id: 'msg_1',
          url: `https://localhost:${port}/hook`,
          secret: 'whsec_dGVzdA==',
          payload: {
            type: 'enrichment.job.completed',
            job_id: 'j',
            status: 'completed',
            total_items: 0,
            successful: 0,
            credits_used: 0,
            completed_at: null,
            results_url: 'https://x.example/r',
          },
        },
        5000,
        undefined,
        { allowPrivate: false },
      );
      expect(outcome).toMatchObject({ ok: false, status_code: null, error: WEBHOOK_ADDRESS_REFUSED });
      expect(connections).toBe(0);
    } finally {
      listener.close();
    }
  });
});
