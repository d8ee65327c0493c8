import type { EngineUsage, EnrichInput, EnrichmentResult } from '../types';
import { completeJson, type LlmClient } from './client';
import type { JsonSchema } from './schema';
import { callForSpeed } from './speed';

/**
 * `validate_semantics` with a model (docs/api-enrichment.md "Enrichment jobs": "AI checks that values fit field
 * descriptions"): after extraction, one structured-output call asks whether each output value fits
 * its field's name, description, unit and allowed values. The rule checks
 * (src/enrichment/semantics: type, bounds, pattern, GS1 check digit, …) have run already; this
 * adds what rules cannot read, such as a colour in a material field.
 */

/** Flag on a result the model found a value of that does not fit its field. */
export const FIT_FLAG = 'semantic_mismatch';

/** The model's verdict on one field's value. */
interface FitAnswer {
  fits: boolean;
  reason: string;
}

const SYSTEM = [
  'You check product catalog values against the definitions of their fields.',
  'For each field say whether the value is the kind of value the field description asks for (right attribute, plausible for the product,',
  'in the unit and among the allowed values when given): fits = true or false, reason = one sentence.',
  'Judge fit only, not whether the value is true of the product.',
].join(' ');

function fitFormat(fields: string[]): { type: 'json_schema'; json_schema: { name: string; strict: true; schema: JsonSchema } } {
  const verdict: JsonSchema = {
    type: 'object',
    properties: { fits: { type: 'boolean' }, reason: { type: 'string' } },
    required: ['fits', 'reason'],
    additionalProperties: false,
  };
  const properties = Object.fromEntries(fields.map((f) => [f, verdict]));
  return {
    type: 'json_schema',
    json_schema: {
      name: 'field_fit',
      strict: true,
      schema: {
        type: 'object',
        properties: { fields: { type: 'object', properties, required: fields, additionalProperties: false } },
        required: ['fields'],
        additionalProperties: false,
      },
    },
  };
}

/** The output fields that hold a value in the result, with their definitions, as the model reads them. */
function valuesToCheck(input: EnrichInput, result: EnrichmentResult): Array<Record<string, unknown>> {
  return input.output_schema
    .filter((f) => result.after_data[f.name] !== undefined && result.after_data[f.name] !== null && f.name in result.after_data.sources)
    .map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      ...(f.unit ? { unit: f.unit } : {}),
      ...(f.enum ? { enum: f.enum } : {}),
      value: bounded(result.after_data[f.name]),
    }));
}

/** A value as the model reads it: strings cut to 500 characters, arrays to 20 elements (a fit is judged on a sample). */
function bounded(value: unknown): unknown {
  if (typeof value === 'string') return value.slice(0, 500);
  if (Array.isArray(value)) return value.slice(0, 20).map(bounded);
  return value;
}

/**
 * Runs the model's fit check on `result` when `input.options.validate_semantics` is set (else
 * returns `refined` as it is). A value the model says does not fit keeps its place (a reviewer
 * decides) but gets a field issue `Does not fit its field: <reason>`, confidence `low`, and the
 * result the flag {@link FIT_FLAG}; `review_info.reasoning` says how many values were checked.
 * Never throws: a failed call adds the flag `llm_failed` and the reason. The call's usage is
 * added to `refined.usage`.
 * @param refined the result and usage of extraction so far
 */
export async function withFitCheck(
  llm: LlmClient,
  input: EnrichInput,
  refined: { result: EnrichmentResult; usage: EngineUsage },
): Promise<{ result: EnrichmentResult; usage: EngineUsage }> {
  const values = input.options.validate_semantics ? valuesToCheck(input, refined.result) : [];
  if (values.length === 0) return refined;
  const usage = { ...refined.usage, llm_calls: refined.usage.llm_calls + 1 };
  const review = { ...refined.result.review_info, flags: [...refined.result.review_info.flags], field_issues: [...refined.result.review_info.field_issues] };
  const names = values.map((v) => v.name as string);
  try {
    const body = { item: input.item, ...(input.options.quality_prompt ? { catalog_quality_rules: input.options.quality_prompt } : {}), values };
    const { data, usage: tokens } = await completeJson(
      llm,
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: JSON.stringify(body) },
      ],
      fitFormat(names),
      callForSpeed(llm.config, input.options.speed),
    );
    usage.llm_prompt_tokens += tokens.prompt_tokens;
    usage.llm_completion_tokens += tokens.completion_tokens;
    const answers = (data as { fields?: Record<string, FitAnswer> })?.fields;
    if (!answers || typeof answers !== 'object') throw new Error('LLM answer lacks "fields"');
    const misfits = names.filter((n) => answers[n]?.fits === false);
    for (const name of misfits) {
      review.field_issues.push({ field: name, message: `Does not fit its field: ${String(answers[name].reason).slice(0, 300)}` });
      review.field_confidence = { ...review.field_confidence, [name]: 'low' };
    }
    if (misfits.length) {
      review.flags.push(FIT_FLAG);
      review.confidence = 'low';
    }
    review.reasoning = `${review.reasoning} The model checked ${names.length} value(s) against their field descriptions: ${misfits.length ? `${misfits.join(', ')} do(es) not fit` : 'all fit'}.`;
  } catch (err) {
    const reported = (err as { usage?: { prompt_tokens: number; completion_tokens: number } }).usage;
    if (reported) {
      usage.llm_prompt_tokens += reported.prompt_tokens;
      usage.llm_completion_tokens += reported.completion_tokens;
    }
    if (!review.flags.includes('llm_failed')) review.flags.push('llm_failed');
    review.reasoning = `${review.reasoning} The model's check of values against their field descriptions failed (${(err instanceof Error ? err.message : String(err)).slice(0, 200)}).`;
  }
  return { result: { ...refined.result, review_info: review }, usage };
}
