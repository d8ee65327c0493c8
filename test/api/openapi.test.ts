import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Server } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import { buildRegistry } from '../../src/app';
import { loadConfig } from '../../src/config';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { noJobs, testApp } from '../helpers/app';
import { bodyOf } from '../helpers/wire';

/**
 * `GET /api/openapi.json` and `GET /docs` (docs/api-reference.md "URLs"): the document is OpenAPI 3.1 and
 * lists every registered route with the very schemas that validate its requests, so the docs
 * and the validation cannot drift (docs/architecture.md; src/routes/registry.ts).
 */

/** A media type's schema in an OpenAPI document. */
interface ContentDoc {
  schema: { properties?: Record<string, unknown>; [keyword: string]: unknown };
}

/** The parts of an OpenAPI 3.1 operation the tests read. */
interface OperationDoc {
  summary: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { required?: boolean; content: Record<string, ContentDoc> };
  responses: Record<string, { content?: Record<string, ContentDoc>; $ref?: string }>;
}

/** The parts of the OpenAPI document the tests read. */
interface OpenApiDoc {
  openapi: string;
  info: unknown;
  servers: unknown;
  security: unknown;
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, OperationDoc>>;
}

let server: Server;
let doc: OpenApiDoc;
// The document is JSON: compare it with the route schemas as JSON (TypeBox's Symbol markers dropped).
const asJson = <T>(v: T): T => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
const routes = buildRegistry({ config: loadConfig(), knex: testKnex(), jobRunner: noJobs })
  .routes.filter((r) => !r.hidden)
  .map((r) => ({ ...r, body: asJson(r.body), query: asJson(r.query), params: asJson(r.params), response: asJson(r.response), multipart: asJson(r.multipart) }));
const oaPath = (p: string) => '/api' + p.replace(/:(\w+)/g, '{$1}');

beforeAll(async () => {
  server = testApp().listen(0);
  const res = await request(server).get('/api/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  doc = bodyOf<OpenApiDoc>(res);
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

/** Every `$ref` in `value`, as JSON pointers. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document with info, servers, bearer security and paths', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toEqual({ title: expect.any(String), version: '0.1.0' });
    expect(Array.isArray(doc.servers)).toBe(true);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
    for (const [p, ops] of Object.entries(doc.paths)) {
      expect(p.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries(ops)) {
        expect(['get', 'put', 'post', 'delete', 'patch']).toContain(method);
        expect(typeof op.summary).toBe('string');
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        // Every {param} in the template is declared as a required path parameter.
        for (const [, name] of p.matchAll(/\{(\w+)\}/g)) {
          expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name, in: 'path', required: true })]));
        }
      }
    }
  });

  it('resolves every $ref inside the document', () => {
    for (const ref of refs(doc)) {
      expect(ref.startsWith('#/')).toBe(true);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
      expect([ref, target !== undefined]).toEqual([ref, true]);
    }
  });

  it('lists every registered route with the schemas that validate it', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes) {
      const op = doc.paths[oaPath(r.path)]?.[r.method];
      expect([r.method, r.path, op !== undefined]).toEqual([r.method, r.path, true]);
      if (r.body) expect(op.requestBody!.content['application/json'].schema).toEqual(r.body);
      // A multipart form is documented beside the JSON body, or alone (and then required) on a route that reads only a form.
      if (r.multipart) expect(op.requestBody!.content['multipart/form-data'].schema).toEqual(r.multipart);
      if (r.multipart && !r.body) expect(op.requestBody!.required).toBe(true);
      if (!r.body && !r.multipart) expect(op.requestBody).toBeUndefined();
      for (const [where, schema] of [
        ['query', r.query],
        ['path', r.params],
      ] as const) {
        for (const [name, s] of Object.entries((schema?.properties ?? {}) as Record<string, unknown>)) {
          expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name, in: where, schema: s })]));
        }
      }
      if (r.response) expect(op.responses[String(r.status ?? 200)].content!['application/json'].schema).toEqual(r.response);
      if (r.body || r.multipart || r.query || r.params) expect(op.responses['422']).toEqual({ $ref: '#/components/responses/ValidationError' });
    }
  });

  it('uses only valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1) for inputs and responses', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const r of routes) {
      for (const schema of [r.body, r.query, r.params, r.response]) {
        if (schema) expect([r.method, r.path, ajv.validateSchema(schema), ajv.errorsText()]).toEqual([r.method, r.path, true, 'No errors']);
      }
    }
  });

  it('documents the catalog, schema and taxonomy routes', () => {
    for (const [p, method] of [
      ['/api/public/catalogs', 'post'],
      ['/api/public/catalogs', 'get'],
      ['/api/public/catalogs/{catalog_id}', 'put'],
      ['/api/catalogs/{catalog_id}', 'delete'],
      ['/api/public/catalogs/{catalog_id}/duplicate', 'post'],
      ['/api/public/catalogs/{catalog_id}/schema/fields/batch', 'put'],
      ['/api/public/catalogs/{catalog_id}/taxonomy', 'delete'],
      ['/api/public/catalogs/{catalog_id}/catalog-md', 'put'],
      ['/api/public/catalogs/{catalog_id}/quality-prompt', 'get'],
    ]) {
      expect(doc.paths[p]?.[method]).toBeDefined();
    }
    expect(doc.paths['/api/public/catalogs/{catalog_id}/taxonomy'].delete.responses['204']).toBeDefined();
    expect(doc.paths['/api/public/catalogs'].post.requestBody!.content['application/json'].schema.properties!.name).toMatchObject({
      minLength: 1,
      maxLength: 100,
    });
    // A body is required only where the route needs one: submit's only property is optional, and
    // the route accepts a request without a body.
    expect(doc.paths['/api/public/catalogs'].post.requestBody!.required).toBe(true);
    expect(doc.paths['/api/public/activities/{activity_id}/submit'].post.requestBody!.required).toBe(false);
  });

  it('documents the error statuses each route can answer and the taxonomy GET as conditional', () => {
    for (const r of routes.filter((route) => !route.public)) {
      const responses = doc.paths[oaPath(r.path)][r.method].responses;
      // A path naming a resource can be a 404; a body can be too large (413); a POST can meet a
      // running request with its Idempotency-Key (409); a GET without a body cannot be a 413.
      expect([r.path, '404' in responses]).toEqual([r.path, r.params !== undefined]);
      expect([r.path, '413' in responses]).toEqual([r.path, r.body !== undefined || r.multipart !== undefined]);
      expect([r.path, '409' in responses || r.method !== 'post']).toEqual([r.path, true]);
    }
    const taxonomy = doc.paths['/api/public/catalogs/{catalog_id}/taxonomy'].get as OperationDoc & {
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(taxonomy.responses['304']).toBeDefined();
    expect(taxonomy.responses['200'].headers?.ETag).toBeDefined();
    expect(JSON.stringify(taxonomy.parameters)).toContain('#/components/parameters/IfNoneMatch');
    // Only routes that answer conditionally say so.
    expect(doc.paths['/api/public/catalogs/{catalog_id}/taxonomy'].put.responses['304']).toBeUndefined();
  });

  it('lists the status every GET answers for resources that do not exist (a 404 for unknown ids)', async () => {
    const org = await createTestOrg('openapi statuses');
    const answered: string[] = [];
    for (const r of routes.filter((route) => !route.public && route.method === 'get' && route.params)) {
      const path = '/api' + r.path.replace(/:(\w+)/g, () => randomUUID());
      const res = await request(server).get(path).set(org.auth);
      answered.push(`${res.status}`);
      expect([r.path, Object.keys(doc.paths[oaPath(r.path)].get.responses)]).toEqual([r.path, expect.arrayContaining([String(res.status)])]);
    }
    // Most of them name a resource by id and answer 404 for an unknown one.
    expect(answered.filter((s) => s === '404').length).toBeGreaterThan(answered.length / 2);
  });
});

describe('GET /docs', () => {
  it('serves the rendered API docs over the OpenAPI document', async () => {
    const res = await request(server).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('/api/openapi.json');
    const css = await request(server).get('/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
  });
});
