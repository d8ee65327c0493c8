import request from 'supertest';
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { createTestCatalog } from '../helpers/catalogs';
import { XSS_PROBE } from './fixture';

/** Text that must render as text on the flow pages (in a row value and in the flow description): the review pages' probe. */
export const FLOW_XSS_PROBE = XSS_PROBE;

/**
 * The custom transform's script: titles in title case, prices with 20 % VAT, a list-valued
 * `tags` (rendered as JSON), a `__note` (flow metadata, muted), and a print per page. A price
 * that is not a number raises, so a run over such a row fails on the custom_code node.
 */
export const FLOW_SCRIPT = `def transform(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        price = float(r["price"])
        out.append({**r, "title": r["title"].strip().title(), "price": round(price * 1.2, 2), "tags": ["vat-included"], "__note": "price with 20% VAT"})
    print(f"transformed {len(out)} rows")
    return out
`;

/** The `timeout_seconds` the flow is saved with. */
export const FLOW_TIMEOUT_S = 30;

/** What {@link createFlowFixture} made. */
export interface FlowFixture {
  catalogId: string;
  catalogName: string;
  /** The custom transform the flow is saved from. */
  activityId: string;
  flowId: string;
  workflowUrl: string;
}

/**
 * A catalog of three items, a `pending_review` custom transform whose `metadata.script` holds
 * {@link FLOW_SCRIPT}, and a flow saved from it through the real route
 * (`POST /api/public/catalogs/{cid}/activities/{aid}/save-workflow`), so the flow's nodes are
 * exactly what the service makes of a transform: `input → custom_code → stage`.
 */
export async function createFlowFixture(
  knex: Knex,
  app: Parameters<typeof request>[0],
  org: { organizationId: string; auth: { Authorization: string } },
): Promise<FlowFixture> {
  const catalogId = await createTestCatalog(org.organizationId, {
    schema_definition: {
      type: 'object',
      properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['sku'],
    },
  });
  const catalogName = 'Desk accessories';
  await knex('catalogs').where({ id: catalogId }).update({ name: catalogName, item_count: 3 });
  for (const [sku, title, price] of [
    ['ACC-001', 'desk lamp', 30],
    ['ACC-002', 'monitor arm', 80],
    ['ACC-003', 'cable tray', 15],
  ] as const)
    await knex('catalog_items').insert({
      id: newId(),
      catalog_id: catalogId,
      business_key: sku,
      data: JSON.stringify({ sku, title, price }),
      current_version: 1,
    });
  const activityId = newId();
  await knex('review_activities').insert({
    id: activityId,
    organization_id: org.organizationId,
    catalog_id: catalogId,
    type: 'custom_transform',
    status: 'pending_review',
    description: 'Title case and VAT prices',
    metadata: JSON.stringify({ script: { filename: 'vat.py', content: FLOW_SCRIPT, sha256: 'test' } }),
  });
  const saved = await request(app)
    .post(`/api/public/catalogs/${catalogId}/activities/${activityId}/save-workflow`)
    .set(org.auth)
    .send({ workflow_name: 'VAT prices', workflow_description: `Adds VAT to prices ${FLOW_XSS_PROBE}`, timeout_seconds: FLOW_TIMEOUT_S });
  if (saved.status !== 200 && saved.status !== 201) throw new Error(`save-workflow answered ${saved.status}: ${JSON.stringify(saved.body)}`);
  return { catalogId, catalogName, activityId, flowId: saved.body.workflow_id, workflowUrl: saved.body.workflow_url };
}

/**
 * The input of the completed run: the three catalog items and `count - 3` new ones (more rows
 * than one dashboard page, so the results table has a second page); row 1's title carries
 * {@link FLOW_XSS_PROBE}.
 */
export function completedRunInput(count: number): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [
    { sku: 'ACC-001', title: 'desk lamp', price: 30 },
    { sku: 'ACC-002', title: `monitor arm ${FLOW_XSS_PROBE}`, price: 80 },
    { sku: 'ACC-003', title: 'cable tray', price: 15 },
  ];
  for (let i = 4; i <= count; i++) rows.push({ sku: `ACC-${String(i).padStart(3, '0')}`, title: `accessory ${i}`, price: i * 10 });
  return rows;
}

/** The input of the failed run: the second row's price is not a number, so `float()` raises in the custom_code node. */
export const FAILING_RUN_INPUT = [
  { sku: 'ACC-101', title: 'footrest', price: 25 },
  { sku: 'ACC-102', title: 'wrist rest', price: 'n/a' },
];
