/**
 * The LLM path of inference ("better with one"): the deterministic result, the
 * user's prompt and the sample rows go to the configured OpenAI-compatible model
 * (src/enrichment/llm/client.ts, strict JSON-schema structured outputs, temperature 0), which
 * may only (a) rewrite the description of existing columns and (b) propose further enrichment
 * fields, each with a reason. Types, enums, units, identifiers and the taxonomy stay the rules'
 * (they are measured and explainable); a model answer that names an unknown column, or a
 * failing call, leaves the rules' result as it is (`llm_error` says why).
 */
import { completeJson, createLlmClient, type LlmClient, type LlmConfig } from '../../enrichment/llm/client';
import type { InferredField } from './columns';
import type { SuggestedField } from './enrichment-fields';
import type { Row } from './table-file';

/** The client of the configured endpoint (config `llm`), or null when none is configured; created once per app by the inference routes. */
export function inferenceLlm(config: LlmConfig | null): LlmClient | null {
  return config ? createLlmClient(config) : null;
}

/** Most enrichment fields the model may add. */
const MAX_LLM_FIELDS = 10;
const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array'] as const;

/** The strict response format: every property required, no additional properties (OpenAI structured outputs). */
export function inferenceResponseFormat(columns: string[]): {
  type: 'json_schema';
  json_schema: { name: string; strict: true; schema: Record<string, unknown> };
} {
  return {
    type: 'json_schema',
    json_schema: {
      name: 'schema_inference',
      strict: true,
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['columns', 'enrichment_fields'],
        properties: {
          columns: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'description'],
              properties: { name: { type: 'string', enum: columns }, description: { type: 'string' } },
            },
          },
          enrichment_fields: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'type', 'description', 'unit', 'reason'],
              properties: {
                name: { type: 'string' },
                type: { type: 'string', enum: [...FIELD_TYPES] },
                description: { type: 'string' },
                unit: { type: ['string', 'null'] },
                reason: { type: 'string' },
              },
            },
          },
        },
      },
    },
  };
}

/** What the model sees of a column: the rules' findings, not the raw profile. */
function columnBrief(f: InferredField): Record<string, unknown> {
  return { name: f.name, type: f.type, role: f.role, unit: f.unit?.symbol ?? null, enum: f.enum?.slice(0, 20) ?? null, examples: f.examples.slice(0, 3) };
}

function isAnswer(v: unknown): v is {
  columns: Array<{ name: string; description: string }>;
  enrichment_fields: Array<{ name: string; type: (typeof FIELD_TYPES)[number]; description: string; unit: string | null; reason: string }>;
} {
  const o = v as { columns?: unknown; enrichment_fields?: unknown };
  return typeof v === 'object' && v !== null && Array.isArray(o.columns) && Array.isArray(o.enrichment_fields);
}

/** The parts of a rules inference the model may refine (src/services/sheets/infer.ts `Inference`). */
export interface Refinable {
  fields: InferredField[];
  schema: { properties: Record<string, Record<string, unknown>> };
  enrichment_fields: SuggestedField[];
}

/** The refined parts, or the reason the rules' result stays as it is. */
export type Refinement = { properties: Record<string, Record<string, unknown>>; enrichment_fields: SuggestedField[] } | { error: string };

/**
 * Refines a rules inference with the model. Never throws: on any failure it returns `{error}`
 * and the caller keeps the rules' result.
 * @param sample the first `sample_rows_used` rows (header excluded)
 */
export async function refineWithLlm(llm: LlmClient, r: Refinable, headers: string[], sample: Row[], prompt: string | undefined): Promise<Refinement> {
  const names = r.fields.map((f) => f.name);
  const messages: Array<{ role: 'system' | 'user'; content: string }> = [
    {
      role: 'system',
      content:
        'You help set up a product catalog from a spreadsheet. The columns were already typed by rules; do not change types. ' +
        'For each column, write a one-sentence description of what it holds (units and format included) good enough to guide data entry. ' +
        `Then propose at most ${MAX_LLM_FIELDS} further product attributes worth researching on the web for these products that the file lacks ` +
        '(not already columns or proposed fields), each with a precise description usable as an extraction instruction, a unit for numbers ' +
        '(null otherwise) and a one-sentence reason. Answer in the given JSON schema.',
    },
    {
      role: 'user',
      content: JSON.stringify({
        prompt: prompt ?? '',
        columns: r.fields.map(columnBrief),
        already_proposed: r.enrichment_fields.map((f) => f.name),
        sample_rows: sample.map((row) => Object.fromEntries(headers.map((h, i) => [h, (row[i] ?? '').slice(0, 300)]))),
      }),
    },
  ];
  try {
    const { data } = await completeJson(llm, messages, inferenceResponseFormat(names));
    if (!isAnswer(data)) throw new Error('LLM answer does not have the requested shape');
    const descriptions = new Map(data.columns.filter((c) => names.includes(c.name) && c.description.trim()).map((c) => [c.name, c.description.trim()]));
    const taken = new Set([...names, ...r.enrichment_fields.map((f) => f.name)].map((n) => n.toLowerCase()));
    const added: SuggestedField[] = [];
    for (const f of data.enrichment_fields) {
      const name = f.name.trim().replace(/\s+/g, '_').toLowerCase();
      if (!name || taken.has(name) || added.length >= MAX_LLM_FIELDS || !f.description.trim()) continue;
      taken.add(name);
      added.push({ name, type: f.type, description: f.description.trim(), ...(f.unit ? { unit: f.unit } : {}), reason: `LLM: ${f.reason.trim()}` });
    }
    const properties = { ...r.schema.properties };
    for (const [name, d] of descriptions) properties[name] = { ...properties[name], description: d, 'x-description-by': 'llm' };
    for (const s of added)
      properties[s.name] = {
        type: s.type,
        description: s.description,
        ...(s.type === 'array' ? { items: { type: 'string' } } : {}),
        ...(s.unit ? { 'x-unit': s.unit } : {}),
        'x-field-category': 'enriched',
        'x-reason': s.reason,
      };
    return { properties, enrichment_fields: [...r.enrichment_fields, ...added] };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
