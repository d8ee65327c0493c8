/**
 * The LLM path of inference against a loopback OpenAI-compatible server: a strict
 * json_schema request naming the columns; descriptions and proposed fields merged (types stay
 * the rules'); unknown columns and failures leave the rules' result with `llm_error`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inferSchemaFromFile } from '../../../src/services/sheets/infer';
import { inferenceLlm } from '../../../src/services/sheets/llm';
import { googleTaxonomyCache } from '../../../src/services/sheets/taxonomy';
import { readBody, startServer } from '../providers/fixtures';

interface ChatRequest {
  model: string;
  temperature: number;
  messages: Array<{ role: string; content: string }>;
  response_format: {
    type: string;
    json_schema: { strict: boolean; schema: { properties: { columns: { items: { properties: { name: { enum: string[] } } } } } } };
  };
}

let server: Awaited<ReturnType<typeof startServer>>;
const bodies: ChatRequest[] = [];
let answer: unknown;
let status = 200;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infer-llm-'));
  file = path.join(dir, 'chairs.csv');
  fs.writeFileSync(file, 'sku,title,weight_kg\nC-1,Oak chair,4.5\nC-2,Pine stool,2\nC-3,Beech bench,9.25\n');
  server = await startServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as ChatRequest;
    bodies.push(body);
    if (status !== 200) return res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer), refusal: null } }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  bodies.length = 0;
  status = 200;
});

const run = () =>
  inferSchemaFromFile(
    { path: file, name: 'chairs.csv' },
    {
      maxSampleRows: 2,
      prompt: 'Solid wood seating',
      generateTaxonomy: false,
      google: googleTaxonomyCache(null),
      llm: inferenceLlm({ baseUrl: server.url('/v1'), apiKey: 'k', model: 'test-model', timeoutMs: 5000, maxRetries: 0 }),
    },
  );

it('sends a strict structured-output request and merges descriptions and proposed fields', async () => {
  answer = {
    columns: [{ name: 'weight_kg', description: 'Net weight of the seat in kilograms.' }],
    enrichment_fields: [
      {
        name: 'Seat height',
        type: 'number',
        description: 'Height of the seat surface above the floor in cm.',
        unit: 'cm',
        reason: 'Buyers compare seat heights.',
      },
      { name: 'brand', type: 'string', description: 'dup', unit: null, reason: 'already proposed' },
    ],
  };
  const r = await run();
  expect(bodies).toHaveLength(1);
  const body = bodies[0];
  expect(body).toMatchObject({ model: 'test-model', temperature: 0, response_format: { type: 'json_schema', json_schema: { strict: true } } });
  expect(body.response_format.json_schema.schema.properties.columns.items.properties.name.enum).toEqual(['sku', 'title', 'weight_kg']);
  const user = JSON.parse(body.messages[1].content);
  expect(user.prompt).toBe('Solid wood seating');
  expect(user.sample_rows).toHaveLength(2);
  expect(r.method).toBe('llm');
  expect(r.schema.properties.weight_kg).toMatchObject({ type: 'number', description: 'Net weight of the seat in kilograms.', 'x-unit': 'kg' });
  expect(r.enrichment_fields.find((f) => f.name === 'seat_height')).toMatchObject({ type: 'number', unit: 'cm', reason: 'LLM: Buyers compare seat heights.' });
  expect(r.enrichment_fields.filter((f) => f.name === 'brand')).toHaveLength(1);
});

it('keeps the rules result when the call fails or the answer is out of shape', async () => {
  status = 500;
  const failed = await run();
  expect(failed.method).toBe('rules');
  expect(failed.llm_error).toBeTruthy();
  status = 200;
  answer = { columns: 'nope' };
  const odd = await run();
  expect(odd).toMatchObject({ method: 'rules', llm_error: 'LLM answer does not have the requested shape' });
});
