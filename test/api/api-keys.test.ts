import type { Server } from 'node:http';
import { runOps } from '../../src/cli/ops';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg } from '../helpers/db';

/** API key management over the API and for operators, called through the typed client (packages/client). */

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
  server = await listenTestApp();
  org = await createTestOrg('keys org');
  other = await createTestOrg('keys bystander');
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });
/** The typed client with `auth`'s credential. */
const as = (auth: Record<string, string>) => typedClient(server, auth);
/** The status of `GET /api/public/catalogs` with `auth`'s credential. */
const catalogsStatus = async (auth: Record<string, string>) => (await as(auth).GET('/api/public/catalogs')).response.status;

it('creates a key shown once, lists prefixes only, and refuses a revoked key at once', async () => {
  const created = await as(org.auth).POST('/api/public/api-keys', { body: { name: 'ci pipeline' } });
  expect(created.response.status).toBe(200);
  const key = created.data as KeyBody;
  expect(key).toMatchObject({ organization_id: org.organizationId, name: 'ci pipeline', revoked_at: null });
  expect(key.api_key).toMatch(/^ck_[0-9A-Za-z]{40,}$/);
  expect(key.api_key!.startsWith(key.key_prefix)).toBe(true);

  expect(await catalogsStatus(bearer(key.api_key!))).toBe(200);

  const listed = await as(org.auth).GET('/api/public/api-keys');
  const keys = (listed.data as { api_keys: KeyBody[] }).api_keys;
  expect(keys.map((k) => k.id)).toContain(key.id);
  expect(JSON.stringify(listed.data)).not.toContain(key.api_key!);
  expect(keys.every((k) => !('api_key' in k) && !('key_hash' in k))).toBe(true);

  const revoked = await as(org.auth).DELETE('/api/public/api-keys/{key_id}', { params: { path: { key_id: key.id } } });
  expect(revoked.response.status).toBe(200);
  expect((revoked.data as KeyBody).revoked_at).not.toBeNull();
  expect(await catalogsStatus(bearer(key.api_key!))).toBe(401);
  // The organization's other key still works.
  expect(await catalogsStatus(org.auth)).toBe(200);
});

it("cannot see or revoke another organization's keys", async () => {
  const theirs = (await as(other.auth).POST('/api/public/api-keys', { body: { name: 'theirs' } })).data as KeyBody;
  const revoke = (id: string) => as(org.auth).DELETE('/api/public/api-keys/{key_id}', { params: { path: { key_id: id } } });
  expect((await revoke(theirs.id)).response.status).toBe(403);
  const mine = ((await as(org.auth).GET('/api/public/api-keys')).data as { api_keys: KeyBody[] }).api_keys;
  expect(mine.map((k) => k.id)).not.toContain(theirs.id);
  expect(await catalogsStatus(bearer(theirs.api_key!))).toBe(200);
  expect((await revoke('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
  // @ts-expect-error `name` is required: the type check refuses the body the service answers 422 for.
  expect((await as(org.auth).POST('/api/public/api-keys', { body: {} })).response.status).toBe(422);
});

it('lets operators create an organization and keys, and revoke them, with npm run ops', async () => {
  const lines: string[] = [];
  expect(await runOps(['org', 'create', 'ops-made org'], (l) => lines.push(l))).toBe(0);
  const org1 = JSON.parse(lines.pop()!) as { organization_id: string; api_key: string };
  expect(await catalogsStatus(bearer(org1.api_key))).toBe(200);

  expect(await runOps(['key', 'create', org1.organization_id, '--name', 'second'], (l) => lines.push(l))).toBe(0);
  const second = JSON.parse(lines.pop()!) as { key_id: string; api_key: string };
  expect(await catalogsStatus(bearer(second.api_key))).toBe(200);

  expect(await runOps(['key', 'revoke', second.key_id], (l) => lines.push(l))).toBe(0);
  expect(await catalogsStatus(bearer(second.api_key))).toBe(401);
  expect(await runOps(['key', 'create'], (l) => lines.push(l))).toBe(2);
});
