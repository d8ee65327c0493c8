import type { Knex } from 'knex';
import { createKnex } from '../../src/db';
import { createOrganizationWithKey } from '../../src/services/access/auth';
import { TEST_DATABASE_URL } from '../setup/env';

let shared: Knex | null = null;

/** One Knex instance on the test database per test file; close it with {@link closeTestKnex}. */
export function testKnex(): Knex {
  shared ??= createKnex(TEST_DATABASE_URL, { min: 0, max: 5 });
  return shared;
}

/** Closes the file's Knex instance (call in `afterAll`). */
export async function closeTestKnex(): Promise<void> {
  await shared?.destroy();
  shared = null;
}

/** A fresh organization with an API key: tests isolate their data by organization. */
export async function createTestOrg(name = 'test org'): Promise<{ organizationId: string; apiKey: string; auth: { Authorization: string } }> {
  const { organizationId, apiKey } = await createOrganizationWithKey(testKnex(), name);
  return { organizationId, apiKey, auth: { Authorization: `Bearer ${apiKey}` } };
}
