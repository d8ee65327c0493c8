/**
 * The flows pages' rendering (src/dashboard/flow-views.ts) for what the browser test's flow does
 * not have: an enrich node (its output fields and saved request), attachments, a deleted stage
 * catalog and source activity; and escaping of every value there.
 */
import { Flow } from '../../../src/models/flow';
import { FlowRun } from '../../../src/models/flow-run';
import { FlowRunNode } from '../../../src/models/flow-run-node';
import { flowPage, runPage } from '../../../src/dashboard/flow-views';
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

describe('run page', () => {
  test('row values: text escaped, lists and objects as JSON, null muted, a key missing from a row empty (never inherited)', () => {
    const flow = enrichFlow();
    const run = Object.assign(new FlowRun(), {
      id: '00000000-0000-4000-8000-0000000000r2',
      flow_id: flow.id,
      catalog_id: flow.catalog_id,
      status: 'completed',
      progress: 1,
      input_count: 2,
      current_step: null,
      message: 'Completed',
      updates: [`[custom_code] ${PROBE}`],
      failed_node_id: null,
      error: null,
      activity_id: null,
      attempts: 1,
      created_at: new Date('2026-11-24T10:01:00Z'),
      completed_at: new Date('2026-11-24T10:02:00Z'),
    });
    const node = Object.assign(new FlowRunNode(), {
      run_id: run.id,
      node_id: 'input',
      position: 0,
      node_type: 'input',
      status: 'completed',
      output_count: 2,
      executions: 1,
    });
    const data: Array<Record<string, unknown>> = [{ toString: PROBE, nested: { a: [1, PROBE] }, empty: null }, { other: 1 }];
    const page = runPage(
      {
        flow,
        run,
        nodes: [node],
        outputNodes: ['input'],
        selectedNode: 'input',
        rows: { data, total: 2, page: 1, page_size: 25, has_more: false },
        columns: rowColumns(data),
      },
      { page: 1 },
      session,
    );
    expect(page).not.toContain(PROBE);
    expect(page).not.toContain('http-equiv="refresh"');
    expect(page).toContain('<td data-column="toString" class="">&lt;script&gt;');
    expect(page).toContain('<code class="json">{&quot;a&quot;:[1,&quot;&lt;script&gt;');
    expect(page).toContain('<td data-column="empty" class=""><span class="muted">null</span></td>');
    // Row 2 has no toString of its own: its cell is empty, not Object.prototype.toString.
    expect(page).not.toContain('[native code]');
    expect(page).toContain('<td data-column="toString" class=""></td>');
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
