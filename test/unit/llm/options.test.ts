/**
 * The enrich options that need a model, at the model: `prompt`, the catalog's
 * quality prompt and re-extraction feedback in the extraction request; `speed` choosing the model
 * and reasoning effort; `validate_semantics` asking the model whether each value fits its field.
 * And without a model: the prompt's product words and domains steer research.
 */
import { loadConfig } from '../../../src/config';
import { createEngine } from '../../../src/enrichment/engine';
import { callForSpeed, judgeSpeed } from '../../../src/enrichment/llm/speed';
import { promptSteer, withPromptWords } from '../../../src/enrichment/research/prompt';
import type { Fetcher, SearchProvider } from '../../../src/enrichment/research/types';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { startModelServer, userJson, type ModelServer, type ModelAnswer, type ChatRequest } from '../../helpers/model-server';
import { onePageSite } from '../../helpers/one-page-site';

const PAGE_URL = 'https://shop.example.com/acme-widget-3000';
const PAGE = `<html><head><title>Acme Widget 3000</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Widget 3000","brand":{"@type":"Brand","name":"Acme"},"sku":"AW-3000","color":"Red"}</script>
</head><body><h1>Acme Widget 3000</h1><p>Finished in brushed steel.</p></body></html>`;

/** Research: one shop page for any query. */
const { search, fetcher } = onePageSite(PAGE_URL, PAGE, 'Acme Widget 3000');

const fields: OutputField[] = [
  { name: 'brand', type: 'string', description: 'Brand name' },
  { name: 'material', type: 'string', description: 'Main material the product is made of' },
];

const none = (field: string) => [field, { value: null, source_url: null, quote: null, explanation: '', confidence: 'low' }];
/** What the fake model answers: nothing new on extraction; `material` does not fit on a fit check. */
function answer(req: ChatRequest): ModelAnswer {
  const name = req.response_format.json_schema.name;
  if (name === 'enrichment') return { content: { fields: Object.fromEntries(fields.map((f) => none(f.name))) } };
  if (name === 'field_fit') {
    const values = userJson(req).values as Array<{ name: string }>;
    return {
      content: {
        fields: Object.fromEntries(
          values.map((v) => [
            v.name,
            v.name === 'material' ? { fits: false, reason: 'Steel-grey is a colour, not a material.' } : { fits: true, reason: 'A brand.' },
          ]),
        ),
      },
    };
  }
  return { status: 400 };
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(answer);
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const llm = (extra: object = {}) => ({ baseUrl: server.baseUrl, apiKey: 'test-key', model: 'm-default', timeoutMs: 5_000, maxRetries: 0, ...extra });
const input = (options: Partial<EnrichInput['options']> = {}, item: Record<string, unknown> = { name: 'Acme Widget 3000' }): EnrichInput => ({
  item,
  output_schema: fields,
  options: { speed: 'fast', web_search: true, ...options },
});

describe('the extraction request carries prompt, quality prompt and feedback', () => {
  it('sends each one under its own key, and none when not given', async () => {
    const engine = createEngine({ search, fetcher, llm: llm() });
    const { evidence } = await engine.research(input());
    await engine.extract(
      input({
        prompt: 'Write materials in lower case.',
        quality_prompt: 'Brands as printed on the box.',
        feedback: 'Material is on the spec sheet.\nRow 0: it is steel.',
      }),
      evidence,
    );
    await engine.extract(input(), evidence);
    const [withAll, plain] = server.named('enrichment').map(userJson);
    expect(withAll).toMatchObject({
      instructions: 'Write materials in lower case.',
      catalog_quality_rules: 'Brands as printed on the box.',
      reviewer_feedback: 'Material is on the spec sheet.\nRow 0: it is steel.',
    });
    expect(plain).not.toHaveProperty('instructions');
    expect(plain).not.toHaveProperty('catalog_quality_rules');
    expect(plain).not.toHaveProperty('reviewer_feedback');
    expect(server.requests[0].messages[0].content).toMatch(/reviewer_feedback/);
  });
});

describe('speed picks the model and the reasoning effort', () => {
  const models = { cheap: 'm-cheap', fast: 'm-fast', deep: 'm-deep' };

  it('sends the tier model with its effort and no temperature when the models reason', async () => {
    const engine = createEngine({ search, fetcher, llm: llm({ models, reasoning: true }) });
    for (const speed of ['cheap', 'fast', 'medium', 'deep', 'ultra_slow'] as const) await engine.enrich(input({ speed }));
    expect(server.named('enrichment').map((r) => [r.model, r.reasoning_effort, r.temperature])).toEqual([
      ['m-cheap', 'low', undefined],
      ['m-fast', 'low', undefined],
      ['m-default', 'medium', undefined],
      ['m-deep', 'high', undefined],
      ['m-deep', 'high', undefined],
    ]);
  });

  it('without reasoning: the tier model at temperature 0, no effort; missing tier models fall back', async () => {
    const engine = createEngine({ search, fetcher, llm: llm({ models: { fast: 'm-fast' } }) });
    await engine.enrich(input({ speed: 'cheap' }));
    await engine.enrich(input({ speed: 'deep' }));
    expect(server.named('enrichment').map((r) => [r.model, r.reasoning_effort, r.temperature])).toEqual([
      ['m-fast', undefined, 0],
      ['m-default', undefined, 0],
    ]);
  });

  it('reads the tier models and OPENAI_REASONING from the environment', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_MODEL: 'm',
      OPENAI_MODEL_FAST: 'f',
      OPENAI_MODEL_DEEP: 'd',
      OPENAI_REASONING: 'true',
    });
    expect(config.llm).toMatchObject({ model: 'm', models: { fast: 'f', deep: 'd' }, reasoning: true });
    expect(callForSpeed(config.llm!, 'cheap')).toEqual({ model: 'f', reasoning_effort: 'low' });
    expect(callForSpeed(config.llm!, 'slow')).toEqual({ model: 'd', reasoning_effort: 'high' });
    expect(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }).llm).toMatchObject({ models: {}, reasoning: false });
  });

  it('maps the judge tiers', () => {
    expect(judgeSpeed('high')).toBe('deep');
    expect(judgeSpeed('fast')).toBe('fast');
    expect(judgeSpeed(undefined)).toBe('medium');
    expect(judgeSpeed('gpt-9')).toBeNull();
    expect(callForSpeed(llm({ models, reasoning: true }), judgeSpeed('high')!)).toEqual({ model: 'm-deep', reasoning_effort: 'high' });
  });
});

describe('validate_semantics asks the model whether each value fits its field', () => {
  it('sends the values with their descriptions and flags the misfits in review_info', async () => {
    const engine = createEngine({ search, fetcher, llm: llm() });
    const { result, usage } = await engine.enrich(input({ validate_semantics: true }, { name: 'Acme Widget 3000', material: 'Steel-grey' }));
    const [fit] = server.named('field_fit');
    expect(fit).toBeDefined();
    const values = userJson(fit).values as Array<Record<string, unknown>>;
    expect(values).toEqual(
      expect.arrayContaining([
        { name: 'brand', type: 'string', description: 'Brand name', value: 'Acme' },
        { name: 'material', type: 'string', description: 'Main material the product is made of', value: 'Steel-grey' },
      ]),
    );
    expect(fit.response_format.json_schema.strict).toBe(true);
    const review = result.review_info;
    expect(review.field_issues).toEqual(
      expect.arrayContaining([{ field: 'material', message: 'Does not fit its field: Steel-grey is a colour, not a material.' }]),
    );
    expect(review.field_issues.filter((i) => i.field === 'brand' && i.message.startsWith('Does not fit'))).toEqual([]);
    expect(review.field_confidence.material).toBe('low');
    expect(review.flags).toContain('semantic_mismatch');
    expect(review.reasoning).toMatch(/checked 2 value\(s\) against their field descriptions: material do\(es\) not fit/);
    expect(usage.llm_calls).toBe(2);
    expect(usage.llm_prompt_tokens).toBe(200);
  });

  it('makes no fit call without validate_semantics', async () => {
    await createEngine({ search, fetcher, llm: llm() }).enrich(input());
    expect(server.named('field_fit')).toEqual([]);
    expect(server.named('enrichment')).toHaveLength(1);
  });
});

describe('without a model the prompt steers research', () => {
  it('reads product words and domains from the prompt', () => {
    const steer = promptSteer('Cordless drills: prefer www.Bosch-Professional.com and toolnut.co.uk, see specs.pdf; find the price', 'GSR 18V-55', [
      { name: 'price', type: 'number', description: 'Price' },
    ]);
    expect(steer.domains).toEqual(['bosch-professional.com', 'toolnut.co.uk']);
    expect(steer.words).toEqual(['cordless', 'drills']);
    expect(promptSteer('Find the brand', 'x', []).words).toEqual([]);
    // Words of the fields' descriptions say what to find, not what the product is.
    expect(promptSteer('Garden hoses: the selling price', undefined, [{ name: 'price', type: 'number', description: 'Current selling price' }]).words).toEqual([
      'garden',
      'hoses',
    ]);
  });

  it('adds the words to the name query within the tier budget', () => {
    expect(withPromptWords(['4006381333931', 'Bosch GSR', 'GSR'], 'GSR', ['cordless'], 3)).toEqual(['4006381333931', 'Bosch GSR', 'Bosch GSR cordless']);
    expect(withPromptWords(['Bosch GSR'], 'GSR', ['cordless'], 1)).toEqual(['Bosch GSR cordless']);
    expect(withPromptWords(['4006381333931', 'Bosch GSR'], 'GSR', ['cordless'], 2)).toEqual(['4006381333931', 'Bosch GSR cordless']);
    expect(withPromptWords(['4006381333931'], undefined, ['cordless'], 2)).toEqual(['4006381333931']);
  });

  it('queries with the words and reads the named domain first', async () => {
    const queries: string[] = [];
    const fetched: string[] = [];
    const recording: SearchProvider = {
      search: async (q) => {
        queries.push(q);
        return [
          { url: 'https://other.example/widget', title: 'Widget', snippet: '', score: 2 },
          { url: 'https://www.acme-tools.example/widget-3000', title: 'Widget', snippet: '', score: 1 },
        ];
      },
    };
    const pages: Fetcher = {
      fetch: async (url) => {
        fetched.push(url);
        return { url, final_url: url, status: 404, content_type: 'text/html', body: Buffer.from(''), fetched_at: new Date(0).toISOString() };
      },
    };
    const engine = createEngine({ search: recording, fetcher: pages });
    const { evidence } = await engine.research(input({ speed: 'cheap', prompt: 'Garden sprinklers; use acme-tools.example' }, { name: 'Widget 3000' }));
    expect(queries).toEqual(['Widget 3000 garden sprinklers']);
    expect(evidence.search_results[0].url).toBe('https://www.acme-tools.example/widget-3000');
    expect(fetched[0]).toBe('https://www.acme-tools.example/widget-3000');
    queries.length = 0;
    await engine.research(input({ speed: 'cheap' }, { name: 'Widget 3000' }));
    expect(queries).toEqual(['Widget 3000']);
  });
});
