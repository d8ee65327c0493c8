/**
 * The flows pages' rendering (src/dashboard/flow-views.ts) for what the browser test's flow does
 * not have: an enrich node (its output fields and saved request), attachments, a deleted stage
 * catalog and source activity; and escaping of every value there.
 */
import { Flow } from '../../../src/models/flow';
import { FlowRun } from '../../../src/models/flow-run';
import { flowPage } from '../../../src/dashboard/flow-views';
import { rowColumns } from '../../../src/dashboard/flows-data';

const PROBE = '<script>window.__xss=1</script>';
const session = { csrfToken: 'token', organizationId: '00000000-0000-4000-8000-000000000001' };

function enrichFlow(): Flow {
  return Object.assign(new Flow(), {
    id: '00000000-0000-4000-8000-0000000000f1',
    organization_id: session.organizationId,
    catalog_id: '00000000-0000-4000-8000-0000000000c1',
    name: `Enrich ${PROBE}`,
    description: null,
    nodes: [
      { id: 'input', type: 'input', config: {} },
      {
        id: 'enrich',
        type: 'enrich',
        config: { request: { output_schema: [{ name: 'brand', type: 'string', description: `Brand ${PROBE}` }], web_search: true } },
        attachments: [{ node_id: 'enrich', note: PROBE }],
      },
      { id: 'stage', type: 'stage', config: { catalog_id: '00000000-0000-4000-8000-0000000000c1' } },
    ],
    attachments: [],
    source_activity_id: '00000000-0000-4000-8000-0000000000a1',
    created_at: new Date('2026-11-24T10:00:00Z'),
    updated_at: new Date('2026-11-24T10:00:00Z'),
  });
}

describe('flow page', () => {
  test('an enrich node shows its output fields and saved request; nothing unescaped', () => {
    const run = Object.assign(new FlowRun(), {
      id: '00000000-0000-4000-8000-0000000000r1',
      status: 'running',
      progress: 0.5,
      input_count: 3,
      created_at: new Date('2026-11-24T10:01:00Z'),
      completed_at: null,
    });
    const page = flowPage({ flow: enrichFlow(), runs: [run], catalogs: {}, sourceActivity: null }, session);
    expect(page).not.toContain(PROBE);
    expect(page).toContain('Enrich &lt;script&gt;');
    expect(page).toMatch(/<td><code>brand<\/code><\/td>\s*<td>string<\/td>\s*<td>Brand &lt;script&gt;/);
    expect(page).toContain('&quot;web_search&quot;: true');
    expect(page).toContain('1 attachment(s)');
    // The stage catalog and the source activity are gone: named, not linked.
    expect(page).toContain('catalog <code>00000000-0000-4000-8000-0000000000c1</code> (no longer available)');
    expect(page).toContain('activity <code>00000000-0000-4000-8000-0000000000a1</code> (no longer available)');
    expect(page).toContain('<progress class="status-running" max="1" value="0.5">');
  });
});

describe('rowColumns', () => {
  test('the union of keys by name, __ metadata keys last', () => {
    expect(
      rowColumns([
        { title: 'a', __note: 'x', sku: '1' },
        { price: 2, __sources: {} },
      ]),
    ).toEqual(['price', 'sku', 'title', '__note', '__sources']);
    expect(rowColumns([])).toEqual([]);
  });
});
