import type { Server } from 'node:http';
import request from 'supertest';
import { runOps } from '../../src/cli/ops';
import { testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg } from '../helpers/db';
import { bodyOf } from '../helpers/wire';

/** API key management over the API and for operators (issue 18). */

interface KeyBody {
  id: string;
  organization_id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
  api_key?: string;
}

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  server = testApp().listen(0);
  org = await createTestOrg('keys org');
  other = await createTestOrg('keys bystander');
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

it('creates a key shown once, lists prefixes only, and refuses a revoked key at once', async () => {
  const created = await request(server).post('/api/public/api-keys').set(org.auth).send({ name: 'ci pipeline' });
  expect(created.status).toBe(200);
  const key = bodyOf<KeyBody>(created);
  expect(key).toMatchObject({ organization_id: org.organizationId, name: 'ci pipeline', revoked_at: null });
  expect(key.api_key).toMatch(/^ck_[0-9A-Za-z]{40,}$/);
  expect(key.api_key!.startsWith(key.key_prefix)).toBe(true);

  expect((await request(server).get('/api/public/catalogs').set(bearer(key.api_key!))).status).toBe(200);

  const listed = await request(server).get('/api/public/api-keys').set(org.auth);
  const keys = bodyOf<{ api_keys: KeyBody[] }>(listed).api_keys;
  expect(keys.map((k) => k.id)).toContain(key.id);
  expect(JSON.stringify(listed.body)).not.toContain(key.api_key!);
  expect(keys.every((k) => !('api_key' in k) && !('key_hash' in k))).toBe(true);

  const revoked = await request(server).delete(`/api/public/api-keys/${key.id}`).set(org.auth);
  expect(revoked.status).toBe(200);
  expect(bodyOf<KeyBody>(revoked).revoked_at).not.toBeNull();
  expect((await request(server).get('/api/public/catalogs').set(bearer(key.api_key!))).status).toBe(401);
  // The organization's other key still works.
  expect((await request(server).get('/api/public/catalogs').set(org.auth)).status).toBe(200);
});

it("cannot see or revoke another organization's keys", async () => {
  const theirs = bodyOf<KeyBody>(await request(server).post('/api/public/api-keys').set(other.auth).send({ name: 'theirs' }));
  expect((await request(server).delete(`/api/public/api-keys/${theirs.id}`).set(org.auth)).status).toBe(403);
  const mine = bodyOf<{ api_keys: KeyBody[] }>(await request(server).get('/api/public/api-keys').set(org.auth)).api_keys;
  expect(mine.map((k) => k.id)).not.toContain(theirs.id);
  expect((await request(server).get('/api/public/catalogs').set(bearer(theirs.api_key!))).status).toBe(200);
  expect((await request(server).delete('/api/public/api-keys/00000000-0000-4000-8000-000000000000').set(org.auth)).status).toBe(404);
  expect((await request(server).post('/api/public/api-keys').set(org.auth).send({})).status).toBe(422);
});

it('lets operators create an organization and keys, and revoke them, with npm run ops', async () => {
  const lines: string[] = [];
  expect(await runOps(['org', 'create', 'ops-made org'], (l) => lines.push(l))).toBe(0);
  const org1 = JSON.parse(lines.pop()!) as { organization_id: string; api_key: string };
  expect((await request(server).get('/api/public/catalogs').set(bearer(org1.api_key))).status).toBe(200);

  expect(await runOps(['key', 'create', org1.organization_id, '--name', 'second'], (l) => lines.push(l))).toBe(0);
  const second = JSON.parse(lines.pop()!) as { key_id: string; api_key: string };
  expect((await request(server).get('/api/public/catalogs').set(bearer(second.api_key))).status).toBe(200);

  expect(await runOps(['key', 'revoke', second.key_id], (l) => lines.push(l))).toBe(0);
  expect((await request(server).get('/api/public/catalogs').set(bearer(second.api_key))).status).toBe(401);
  expect(await runOps(['key', 'create'], (l) => lines.push(l))).toBe(2);
});
