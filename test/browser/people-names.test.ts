/**
 * Authors shown as people in Chromium: a reviewer signed in by email + password
 * takes a snapshot from the snapshots page and adds a schema field; the snapshots page and the
 * schema page's versions list name the person (name and email), and what an API key did is shown
 * by the key's prefix, never as a raw `person:<id>` or `api_key:<id>`. The API keeps the ids.
 */
import request from 'supertest';
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import { createReviewFixture, type ReviewFixture } from './fixture';
import { createPerson } from '../../src/services/access/people';
import { createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';

describe('authors as people in Chromium', () => {
  const app = testApp();
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;
  const email = `ada.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.org`;
  let personId: string;

  const ui = useBrowserSession({
    async setUp() {
      org = await createTestOrg('people names org');
      fx = await createReviewFixture(org.organizationId);
      personId = (await createPerson(testKnex(), org.organizationId, { email, name: 'Ada Lovelace', role: 'reviewer', password: 'ada password 1' })).id;
      return app.callback();
    },
  });

  test('snapshots and schema versions name the person who made them, and a key by its prefix', async () => {
    // Something made by the organization's key, through the API.
    const { page, base } = ui;
    const byKey = await request(app.callback()).post(`/api/public/catalogs/${fx.catalogId}/snapshots`).set(org.auth).send({ reason: 'nightly' });
    expect(byKey.status).toBe(200);
    // The API answers keep the actor id.
    expect(byKey.body.created_by).toMatch(/^api_key:/);

    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/snapshots`);
    await page.fill('#email', email);
    await page.fill('#password', 'ada password 1');
    await Promise.all([page.waitForNavigation(), page.click('#password-sign-in')]);
    expect(page.url()).toBe(`${base}/dashboard/catalogs/${fx.catalogId}/snapshots`);
    await page.fill('#snapshot-reason', 'Taken by Ada');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    const snapshotId = new URL(page.url()).searchParams.get('created') ?? '';
    expect((await testKnex()('catalog_snapshots').where({ id: snapshotId }).first()).created_by).toBe(`person:${personId}`);
    const author = (id: string) => page.$eval(`tr[data-snapshot-id="${id}"] td.created-by`, (e) => e.textContent?.trim());
    expect(await author(snapshotId)).toBe(`Ada Lovelace <${email}>`);
    expect(await author(byKey.body.id)).toBe(`API key ${org.apiKey.slice(0, 10)}…`);
    expect(await page.content()).not.toContain(`>person:${personId}<`);
    await shotAndCheck(page, 'snapshots-authors.png');

    // A schema field added by the person (the page's session and CSRF token) names them in the versions list.
    const status = await page.evaluate(
      async ([u, token]) =>
        (
          await fetch(u, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token },
            body: JSON.stringify({ field_name: 'material', field_type: 'string' }),
          })
        ).status,
      [`/api/public/catalogs/${fx.catalogId}/schema/fields`, await page.$eval('meta[name="csrf-token"]', (e) => e.getAttribute('content') ?? '')],
    );
    expect(status).toBe(200);
    await page.goto(`${base}/dashboard/catalogs/${fx.catalogId}/schema`);
    const version = (await testKnex()('catalogs').where({ id: fx.catalogId }).first()).current_schema_version as string;
    expect(await page.$eval(`tr[data-version="${version}"] td.created-by`, (e) => e.textContent?.trim())).toBe(`Ada Lovelace <${email}>`);
    await shotAndCheck(page, 'schema-authors.png');
    // The top bar links the person to their tool-server keys (none yet).
    await Promise.all([page.waitForNavigation(), page.click('a.own-keys-link')]);
    expect(page.url()).toBe(`${base}/dashboard/tool-server-keys`);
    expect(await page.$$eval('table.own-keys tbody tr', (rows) => rows.length)).toBe(0);
    await shotAndCheck(page, 'people-tool-server-keys.png');
  });
});
