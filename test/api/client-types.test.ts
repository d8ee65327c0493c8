/**
 * The typed client's types match the service: the OpenAPI document the app serves
 * now, run through the generator (`npm run client:generate`, scripts/generate-client.ts), gives
 * byte for byte the checked-in packages/client/src/schema.ts. A route, parameter or schema changed
 * without regenerating fails here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { closeTestKnex } from '../helpers/db';
import { testApp } from '../helpers/app';

const ROOT = path.resolve(__dirname, '../..');
const CHECKED_IN = path.join(ROOT, 'packages/client/src/schema.ts');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await closeTestKnex();
});

/** The first line where `a` and `b` differ, as `line N: <a> ≠ <b>`, or null when they are equal. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const x = a.split('\n');
  const y = b.split('\n');
  const i = x.findIndex((line, n) => line !== y[n]);
  const n = i < 0 ? x.length : i;
  return `line ${n + 1}: ${JSON.stringify(x[n])} ≠ ${JSON.stringify(y[n])}`;
}

test('the checked-in client types are what the generator makes of the live OpenAPI document', async () => {
  const res = await request(testApp().callback()).get('/api/openapi.json');
  expect(res.status).toBe(200);
  const doc = path.join(dir, 'openapi.json');
  const out = path.join(dir, 'schema.ts');
  fs.writeFileSync(doc, JSON.stringify(res.body));
  execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/generate-client.ts', '--from', doc, '--out', out], { cwd: ROOT, stdio: 'pipe' });
  const generated = fs.readFileSync(out, 'utf8');
  expect(generated).toMatch(/^export interface paths \{$/m);
  expect(generated).toContain("'/api/public/catalogs/{catalog_id}/raw-items': {");
  expect(firstDifference(generated, fs.readFileSync(CHECKED_IN, 'utf8'))).toBeNull();
});

test('the generator check mode fails on a file that differs from the document', () => {
  const doc = path.join(dir, 'openapi.json');
  const stale = path.join(dir, 'stale.ts');
  fs.writeFileSync(
    stale,
    fs.readFileSync(CHECKED_IN, 'utf8').replace("'/api/public/catalogs/{catalog_id}/raw-items'", "'/api/public/catalogs/{catalog_id}/old-items'"),
  );
  expect(() =>
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/generate-client.ts', '--from', doc, '--out', stale, '--check'], {
      cwd: ROOT,
      stdio: 'pipe',
    }),
  ).toThrow(/differs from the live OpenAPI document/);
});
