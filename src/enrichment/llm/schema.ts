import type { OutputField } from '../types';

/** A JSON Schema object (the subset OpenAI structured outputs accept). */
export type JsonSchema = Record<string, unknown>;

/** The model's answer for one field, as the schema of {@link responseSchema} forces it. */
export interface FieldAnswer {
  value: string | number | boolean | Array<string | number> | null;
  source_url: string | null;
  /** Verbatim text of the cited passage that states the value. */
  quote: string | null;
  explanation: string;
  confidence: 'high' | 'medium' | 'low';
}

/** The whole answer: one entry per output field. */
export interface LlmAnswer {
  fields: Record<string, FieldAnswer>;
}

function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type as string;
  const out: JsonSchema = { ...schema, type: [type, 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out;
}

function valueSchema(field: OutputField): JsonSchema {
  const members = (values?: Array<string | number | boolean>): JsonSchema => (values && values.length ? { enum: values.map(String) } : {});
  switch (field.type) {
    case 'number':
      return nullable({ type: 'number' });
    case 'integer':
      return nullable({ type: 'integer' });
    case 'boolean':
      return nullable({ type: 'boolean' });
    case 'array': {
      const items: JsonSchema = field.array_element_type === 'number' ? { type: 'number' } : { type: 'string', ...members(field.items_enum) };
      return nullable({ type: 'array', items });
    }
    default:
      return nullable({ type: 'string', ...members(field.enum) });
  }
}

/**
 * The `response_format` of a chat completion with OpenAI structured outputs
 * (platform.openai.com/docs/guides/structured-outputs: `type: json_schema`, `strict: true`;
 * every property required, `additionalProperties: false`, optional values as `null`). Per
 * output field: `value` typed by the field (number/integer/boolean/array, enum members as
 * strings), `source_url` one of `sources` (evidence URLs, `SOURCE_X`, `INPUT:<field>`),
 * `quote` (verbatim support), `explanation` (one sentence) and `confidence` high|medium|low.
 */
export function responseSchema(
  fields: OutputField[],
  sources: string[],
): { type: 'json_schema'; json_schema: { name: string; strict: true; schema: JsonSchema } } {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) {
    properties[f.name] = {
      type: 'object',
      properties: {
        value: valueSchema(f),
        source_url: { type: ['string', 'null'], enum: [...sources, null] },
        quote: { type: ['string', 'null'], description: 'Exact words copied from the cited passage that state the value.' },
        explanation: { type: 'string', description: 'One sentence: where the value was found.' },
        confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
      },
      required: ['value', 'source_url', 'quote', 'explanation', 'confidence'],
      additionalProperties: false,
    };
  }
  return {
    type: 'json_schema',
    json_schema: {
      name: 'enrichment',
      strict: true,
      schema: {
        type: 'object',
        properties: { fields: { type: 'object', properties, required: fields.map((f) => f.name), additionalProperties: false } },
        required: ['fields'],
        additionalProperties: false,
      },
    },
  };
}
