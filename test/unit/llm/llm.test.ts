import { createEngine } from '../../../src/enrichment/engine';
import type { SearchProvider, Fetcher } from '../../../src/enrichment/research/types';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { readBody, startServer } from '../providers/fixtures';
import { onePageSite } from '../../helpers/one-page-site';

const PAGE_URL = 'https://shop.example.com/acme-widget-3000';
const PAGE = `<html><head><title>Acme Widget 3000</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Widget 3000","brand":{"@type":"Brand","name":"Acme"},"sku":"AW-3000"}</script>
</head><body><h1>Acme Widget 3000</h1>
<table><tr><th>Model number</th><td>M-100</td></tr></table>
<p>Finished in brushed steel. Order code AW-3000-B for the black edition.</p>
</body></html>`;

/** Research: one shop page for any query. */
const { search, fetcher } = onePageSite(PAGE_URL, PAGE, 'Acme Widget 3000');

const fields: OutputField[] = [
  { name: 'brand', type: 'string', description: 'Brand name' },
  { name: 'sku', type: 'string', description: 'Retailer SKU' },
  { name: 'mpn', type: 'string', description: 'Manufacturer part number' },
  { name: 'finish', type: 'string', description: 'Surface finish' },
  { name: 'material', type: 'string', description: 'Main material' },
];
const input: EnrichInput = {
  item: { name: 'Acme Widget 3000' },
  output_schema: fields,
  options: { speed: 'fast', web_search: true, low_confidence: { enabled: true } },
};

/** What the model "answers", per field. */
const ANSWER = {
  fields: {
    brand: { value: 'Acme', source_url: PAGE_URL, quote: 'Acme', explanation: 'JSON-LD brand.', confidence: 'high' },
    // Contradicts the JSON-LD sku with a value written in the cited passage → replaces it.
    sku: { value: 'AW-3000-B', source_url: PAGE_URL, quote: 'Order code AW-3000-B', explanation: 'The page gives order code AW-3000-B.', confidence: 'medium' },
    // Contradicts the table's MPN with a value the page never states → the deterministic value stays.
    mpn: { value: 'M-999', source_url: PAGE_URL, quote: null, explanation: 'Guess.', confidence: 'low' },
    // Only the model reads it, and the page states it → added.
    finish: {
      value: 'brushed steel',
      source_url: PAGE_URL,
      quote: 'Finished in brushed steel',
      explanation: 'The description says it is finished in brushed steel.',
      confidence: 'high',
    },
    // Only the model reads it, not in the page → rejected to field_issues and a LOW candidate.
    material: { value: 'Oak', source_url: PAGE_URL, quote: null, explanation: 'Looks wooden.', confidence: 'medium' },
  },
};

let server: Awaited<ReturnType<typeof startServer>>;
let failWith = 0;
/** What the fake model answers this test. */
let answer: unknown = ANSWER;
/** A field's schema in the strict response format (its value object). */
interface FieldSchema {
  required: string[];
  properties: Record<string, { enum?: unknown[] }>;
}
/** A chat completion request as the fake model receives it (the parts the tests read). */
interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format: { type: string; json_schema: { strict: boolean; schema: { properties: { fields: { properties: Record<string, FieldSchema> } } } } };
}
const bodies: ChatRequest[] = [];

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as ChatRequest;
    bodies.push(body);
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return res.writeHead(404).end();
    if (req.headers.authorization !== 'Bearer test-key')
      return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
    if (failWith) return res.writeHead(failWith, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream down"}}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer), refusal: null } }],
        usage: { prompt_tokens: 1234, completion_tokens: 210, total_tokens: 1444 },
      }),
    );
  });
});
afterAll(() => server.close());
beforeEach(() => {
  bodies.length = 0;
  failWith = 0;
  answer = ANSWER;
});

const llm = () => ({ baseUrl: server.url('/v1'), apiKey: 'test-key', model: 'test-model', timeoutMs: 5_000, maxRetries: 0 });

test('sends a strict json_schema request built from the output schema, with the evidence', async () => {
  await createEngine({ search, fetcher, llm: llm() }).enrich(input);
  expect(bodies).toHaveLength(1);
  const body = bodies[0];
  expect(body.model).toBe('test-model');
  expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
  expect(body.response_format.type).toBe('json_schema');
  expect(body.response_format.json_schema.strict).toBe(true);
  const props = body.response_format.json_schema.schema.properties.fields.properties;
  expect(Object.keys(props)).toEqual(fields.map((f) => f.name));
  expect(props.brand.required).toEqual(['value', 'source_url', 'quote', 'explanation', 'confidence']);
  expect(props.brand.properties.source_url.enum).toEqual(expect.arrayContaining([PAGE_URL, 'INPUT:name', null]));
  expect(props.brand.properties.confidence.enum).toEqual(['high', 'medium', 'low']);
  const user = JSON.parse(body.messages[1].content);
  expect(user.passages.map((p: { source: string }) => p.source)).toContain(PAGE_URL);
  expect(user.passages.find((p: { source: string }) => p.source === PAGE_URL).text).toContain('brushed steel');
  expect(user.current_values.sku).toEqual({ value: 'AW-3000', source: PAGE_URL });
});

test('merge rules: kept, contradicted, ungrounded; usage reported', async () => {
  const { result, usage } = await createEngine({ search, fetcher, llm: llm() }).enrich(input);
  const after = result.after_data;
  const review = result.review_info;
  // kept: confirmed deterministic value keeps its method
  expect(after.brand).toBe('Acme');
  expect(review.field_methods.brand).toBe('jsonld');
  // contradicted: the cited passage states the model's value verbatim
  expect(after.sku).toBe('AW-3000-B');
  expect(review.field_methods.sku).toBe('llm');
  expect(after.sources.sku).toEqual([PAGE_URL]);
  expect(review.field_issues).toEqual(expect.arrayContaining([{ field: 'sku', message: expect.stringMatching(/Replaced "AW-3000"/) }]));
  // ungrounded contradiction: deterministic value kept
  expect(after.mpn).toBe('M-100');
  expect(review.field_methods.mpn).toBe('table');
  expect(review.field_issues).toEqual(expect.arrayContaining([{ field: 'mpn', message: expect.stringMatching(/M-999.*kept "M-100"/) }]));
  // LLM-only, grounded
  expect(after.finish).toBe('brushed steel');
  expect(review.field_methods.finish).toBe('llm');
  expect(review.field_confidence.finish).toBe('medium');
  expect(after.source_explanations.finish).toBe('The description says it is finished in brushed steel.');
  // LLM-only, ungrounded: never in the output
  expect(after.material).toBeUndefined();
  expect(result.low_confidence_candidates).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'material', candidate_value: 'Oak', confidence: 'LOW' })]),
  );
  expect(usage).toMatchObject({ llm_calls: 1, llm_prompt_tokens: 1234, llm_completion_tokens: 210, search_calls: 1, pages_fetched: 1 });
});

test('an API error keeps the deterministic values and flags the item', async () => {
  failWith = 500;
  const { result, usage } = await createEngine({ search, fetcher, llm: llm() }).enrich(input);
  expect(result.error).toBeUndefined();
  expect(result.after_data.sku).toBe('AW-3000');
  expect(result.review_info.flags).toContain('llm_failed');
  expect(result.review_info.reasoning).toMatch(/LLM step failed/);
  expect(usage.llm_calls).toBe(1);
  expect(usage.llm_prompt_tokens).toBe(0);
});

test('retries follow the client options', async () => {
  failWith = 503;
  await createEngine({ search, fetcher, llm: { ...llm(), maxRetries: 1 } }).enrich(input);
  expect(bodies).toHaveLength(2);
});

test('without llm config the engine makes no call', async () => {
  const { usage } = await createEngine({ search, fetcher }).enrich(input);
  expect(bodies).toHaveLength(0);
  expect(usage.llm_calls).toBe(0);
});

describe('validate_semantics applies to the values the LLM adds or changes', () => {
  const GADGET_URL = 'https://shop.example.com/acme-gadget-9';
  const GADGET = `<html><head><title>Acme Gadget 9</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Gadget 9","brand":{"@type":"Brand","name":"Acme"},"sku":"AG-9","gtin13":"4006381333931"}</script>
</head><body><h1>Acme Gadget 9</h1>
<p>EAN 4006381333931. Replacement part EAN 4006381333932.</p>
<table><tr><th>Load rating</th><td>250 kg</td></tr></table>
<p>Special offer: 0.00 EUR for club members.</p>
</body></html>`;
  const gadgetSearch: SearchProvider = { search: async () => [{ url: GADGET_URL, title: 'Acme Gadget 9', snippet: '', score: 1 }] };
  const gadgetFetcher: Fetcher = {
    fetch: async (url) => ({
      url,
      final_url: url,
      status: url === GADGET_URL ? 200 : 404,
      content_type: 'text/html',
      body: Buffer.from(url === GADGET_URL ? GADGET : ''),
      fetched_at: new Date(0).toISOString(),
    }),
  };
  const gadgetFields: OutputField[] = [
    { name: 'gtin', type: 'string', description: 'GTIN / EAN' },
    // Read by the deterministic extractor from the spec row: the reference for how a failing value is treated.
    { name: 'load_rating', type: 'number', unit: 'kg', maximum: 200, description: 'Load rating' },
    // Only the model reads these.
    { name: 'max_load', type: 'number', unit: 'kg', maximum: 200, description: 'Maximum load' },
    { name: 'price', type: 'number', description: 'Price' },
  ];
  const gadgetInput = (options: Partial<EnrichInput['options']>): EnrichInput => ({
    item: { name: 'Acme Gadget 9' },
    output_schema: gadgetFields,
    options: { speed: 'fast', web_search: true, ...options },
  });
  const cite = (value: unknown, quote: string) => ({ value, source_url: GADGET_URL, quote, explanation: `The page states ${quote}.`, confidence: 'high' });
  const GADGET_ANSWER = {
    fields: {
      // Grounded, contradicts the JSON-LD GTIN, but its check digit is wrong (GS1 §7.9).
      gtin: cite('4006381333932', 'Replacement part EAN 4006381333932'),
      load_rating: cite(250, 'Load rating 250 kg'),
      // Grounded, above the field's maximum.
      max_load: cite(250, 'Load rating 250 kg'),
      // Grounded, not a plausible price.
      price: cite(0, '0.00 EUR'),
    },
  };
  const run = (options: Partial<EnrichInput['options']>, llm = true) =>
    createEngine({
      search: gadgetSearch,
      fetcher: gadgetFetcher,
      ...(llm ? { llm: { baseUrl: server.url('/v1'), apiKey: 'test-key', model: 'test-model', timeoutMs: 5_000, maxRetries: 0 } } : {}),
    }).enrich(gadgetInput(options));
  const issue = (issues: Array<{ field: string; message: string }>, field: string) =>
    issues.filter((i) => i.field === field && i.message.startsWith('Withheld')).map((i) => i.message);

  beforeEach(() => {
    answer = GADGET_ANSWER;
  });

  it('without validate_semantics the grounded model values are taken (as before)', async () => {
    const { result } = await run({});
    expect(result.after_data).toMatchObject({ gtin: '4006381333932', max_load: 250, price: 0 });
    expect(result.review_info.field_methods).toMatchObject({ gtin: 'llm', max_load: 'llm', price: 'llm' });
    expect(result.review_info.flags).not.toContain('semantic_check_failed');
  });

  it('withholds failing model values exactly as deterministic ones: field issues, flag, low confidence', async () => {
    const deterministic = (await run({ validate_semantics: true }, false)).result;
    const { result } = await run({ validate_semantics: true });
    const review = result.review_info;
    // The deterministic reference: the spec row's 250 kg is withheld by the same rule.
    expect(issue(deterministic.review_info.field_issues, 'load_rating')).toEqual(['Withheld "250": The value is above the maximum 200.']);
    expect(issue(review.field_issues, 'load_rating')).toEqual(issue(deterministic.review_info.field_issues, 'load_rating'));
    // Added by the model, failing: withheld with the same message.
    expect(result.after_data.max_load).toBeUndefined();
    expect(issue(review.field_issues, 'max_load')).toEqual(['Withheld "250": The value is above the maximum 200.']);
    expect(result.after_data.price).toBeUndefined();
    expect(issue(review.field_issues, 'price')).toEqual(['Withheld "0": The value is not a plausible price (must be > 0).']);
    // Changing a valid deterministic value to a failing one: the deterministic value stays.
    expect(result.after_data.gtin).toBe('4006381333931');
    expect(review.field_methods.gtin).toBe('jsonld');
    expect(issue(review.field_issues, 'gtin')).toEqual(['Withheld "4006381333932": The value is not a valid GTIN (check digit).']);
    expect(review.flags).toContain('semantic_check_failed');
    expect(review.confidence).toBe('low');
    // load_rating counts too: the model repeated the reading the engine had already withheld (recorded once).
    expect(review.reasoning).toMatch(/4 withheld by semantic checks/);
  });

  it('with low-confidence candidates requested, failing model values become LOW candidates like deterministic ones', async () => {
    const options = { validate_semantics: true, low_confidence: { enabled: true } };
    const deterministic = (await run(options, false)).result;
    const { result } = await run(options);
    const reference = deterministic.low_confidence_candidates?.find((c) => c.name === 'load_rating');
    expect(reference).toMatchObject({ candidate_value: '250', confidence: 'LOW', reason: 'The value is above the maximum 200.', sources: [GADGET_URL] });
    expect(result.low_confidence_candidates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'max_load',
          scope: 'field',
          candidate_value: '250',
          confidence: 'LOW',
          reason: reference?.reason,
          sources: [GADGET_URL],
        }),
        expect.objectContaining({ name: 'price', candidate_value: '0', reason: 'The value is not a plausible price (must be > 0).' }),
        expect.objectContaining({ name: 'gtin', candidate_value: '4006381333932', reason: 'The value is not a valid GTIN (check digit).' }),
      ]),
    );
    expect(result.after_data.max_load).toBeUndefined();
    expect(result.after_data.gtin).toBe('4006381333931');
    expect(result.review_info.flags).toContain('semantic_check_failed');
  });

  it('a valid model value still passes, and fills a required field', async () => {
    answer = {
      fields: {
        ...GADGET_ANSWER.fields,
        max_load: cite(150, 'rated 150 kg'),
        price: { value: null, source_url: null, quote: null, explanation: '', confidence: 'low' },
      },
    };
    const page = GADGET.replace('</table>', '<tr><th>Rated</th><td>rated 150 kg</td></tr></table>');
    const engine = createEngine({
      search: gadgetSearch,
      fetcher: { fetch: async (url) => ({ ...(await gadgetFetcher.fetch(url)), body: Buffer.from(page) }) },
      llm: { baseUrl: server.url('/v1'), apiKey: 'test-key', model: 'test-model', timeoutMs: 5_000, maxRetries: 0 },
    });
    const required = gadgetFields.map((f) => (f.name === 'max_load' ? { ...f, required: true } : f));
    const { result } = await engine.enrich({ ...gadgetInput({ validate_semantics: true }), output_schema: required });
    expect(result.after_data.max_load).toBe(150);
    expect(result.review_info.field_methods.max_load).toBe('llm');
    expect(result.review_info.field_issues.filter((i) => i.field === 'max_load')).toEqual([]);
    expect(result.review_info.flags).not.toContain('missing_required');
  });
});
