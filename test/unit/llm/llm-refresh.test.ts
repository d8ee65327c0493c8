/**
 * Refresh with an LLM (docs/api-enrichment.md "Refresh and merge"; src/enrichment/llm/merge.ts): a
 * value the model grounds in a page replaces the item's kept value, unless the field merges or
 * the model only read the item itself. The model is an OpenAI-compatible server on 127.0.0.1.
 */
import { createEngine } from '../../../src/enrichment/engine';
import type { Fetcher, SearchProvider } from '../../../src/enrichment/research/types';
import type { EnrichInput } from '../../../src/enrichment/types';
import { readBody, startServer } from '../providers/fixtures';

const PAGE_URL = 'https://shop.example.com/acme-widget-3000';
const PAGE = `<html><head><title>Acme Widget 3000</title></head><body><h1>Acme Widget 3000</h1>
<p>Finished in brushed steel.</p></body></html>`;
const search: SearchProvider = { search: async () => [{ url: PAGE_URL, title: 'Acme Widget 3000', snippet: '', score: 1 }] };
const fetcher: Fetcher = {
  fetch: async (url) => ({ url, final_url: url, status: 200, content_type: 'text/html', body: Buffer.from(PAGE), fetched_at: new Date(0).toISOString() }),
};
let answerSource = PAGE_URL;
let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { model: string };
    const quote = answerSource === PAGE_URL ? 'Finished in brushed steel' : 'brushed steel';
    const answer = { fields: { finish: { value: 'brushed steel', source_url: answerSource, quote, explanation: 'The page says so.', confidence: 'high' } } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer), refusal: null } }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
});
afterAll(() => server.close());

const engine = () => createEngine({ search, fetcher, llm: { baseUrl: server.url('/v1'), apiKey: 'k', model: 'm', timeoutMs: 5_000, maxRetries: 0 } });
const input = (merge: boolean, name = 'Acme Widget 3000'): EnrichInput => ({
  item: { name, finish: 'matte' },
  output_schema: [{ name: 'finish', type: 'string', description: 'Surface finish', merge }],
  options: { speed: 'fast', web_search: true },
});

test('a grounded model value read on a page replaces the item value; merge keeps it', async () => {
  answerSource = PAGE_URL;
  const refreshed = (await engine().enrich(input(false))).result;
  expect([refreshed.after_data.finish, refreshed.after_data.sources.finish, refreshed.review_info.field_methods.finish]).toEqual([
    'brushed steel',
    [PAGE_URL],
    'llm',
  ]);
  const merged = (await engine().enrich(input(true))).result;
  expect([merged.after_data.finish, merged.after_data.sources.finish]).toEqual(['matte', ['INPUT:finish']]);
  expect(merged.review_info.field_issues).toContainEqual({ field: 'finish', message: expect.stringMatching(/but the item states "matte"/) });
});

test('a model value cited from the item itself never replaces the item value', async () => {
  answerSource = 'INPUT:name';
  // The item's name states the model's value, so the value is grounded in the passage it cites.
  const { result } = await engine().enrich(input(false, 'Acme Widget 3000 brushed steel'));
  expect([result.after_data.finish, result.after_data.sources.finish]).toEqual(['matte', ['INPUT:finish']]);
  expect(result.review_info.field_issues).toContainEqual({
    field: 'finish',
    message: 'The LLM read "brushed steel" from INPUT:name, but the item states "matte".',
  });
});
