import { matchPage, type ItemIdentity } from '../extract/identity';
import type { PageDoc } from '../parse/page';
import { itemIdentifiers, itemName } from '../research/plan';
import type { EngineUsage, EnrichInput, EnrichmentResult } from '../types';
import { completeJson, type LlmClient } from './client';
import { mergeLlmAnswer } from './merge';
import { boundPassages, inputPassages, pagePassage, type Passage } from './passages';
import { responseSchema, type LlmAnswer } from './schema';
import { callForSpeed } from './speed';

export { createLlmClient, type LlmClient, type LlmConfig } from './client';
export { withFitCheck } from './fit';

/** A parsed document the model may read: a fetched page (`source` = its URL) or a knowledge-base file (`SOURCE_X`). */
export interface LlmSourceDoc {
  source: string;
  doc: PageDoc;
}

const SYSTEM = [
  'You extract product attributes for a catalog item from the evidence passages given.',
  'Rules: use only the passages; never guess. For each field return the value exactly as the cited passage states it',
  '(converted to the field type; numbers as plain numbers in the field unit), source_url = the passage it comes from,',
  'quote = the exact words of that passage that state the value, explanation = one sentence naming where it was found,',
  'confidence = high|medium|low. If no passage states the field, or the passages are about another product, return null',
  'for value, source_url and quote. "current_values" are what a rule-based extractor found; confirm or correct them.',
  '"instructions" (the requester), "catalog_quality_rules" (the catalog team\'s standards) and "reviewer_feedback" (a reviewer',
  'on an earlier extraction of this item) say what to look for and how to write values; follow them, but only with values the passages state.',
].join(' ');

/**
 * The chat messages for one item: the system rules and a JSON user message with the item,
 * the request's `prompt` (`instructions`), the catalog's quality prompt (`catalog_quality_rules`),
 * re-extraction feedback (`reviewer_feedback`: `global_feedback` then `item_feedback[row]`), the
 * output fields (name, type, description, unit, enum), the deterministic values found so far,
 * and the evidence passages with their citation ids.
 */
export function buildMessages(input: EnrichInput, result: EnrichmentResult, passages: Passage[]): Array<{ role: 'system' | 'user'; content: string }> {
  const fields = input.output_schema.map((f) => ({
    name: f.name,
    type: f.type,
    description: f.description,
    ...(f.unit ? { unit: f.unit } : {}),
    ...(f.enum ? { enum: f.enum } : {}),
    ...(f.array_element_type ? { array_element_type: f.array_element_type } : {}),
  }));
  const current = Object.fromEntries(
    input.output_schema
      .filter((f) => f.name in result.after_data.sources)
      .map((f) => [f.name, { value: result.after_data[f.name], source: result.after_data.sources[f.name][0] }]),
  );
  const body = {
    item: input.item,
    ...(input.options.prompt ? { instructions: input.options.prompt } : {}),
    ...(input.options.quality_prompt ? { catalog_quality_rules: input.options.quality_prompt } : {}),
    ...(input.options.feedback ? { reviewer_feedback: input.options.feedback } : {}),
    fields,
    current_values: current,
    passages: passages.map((p) => ({ source: p.source, title: p.title, text: p.text })),
  };
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: JSON.stringify(body) },
  ];
}

/**
 * Evidence passages for the model: documents that match the item (matchPage) first, then the
 * rest by their given order, then the item's own fields; bounded in size (passages.ts).
 */
export function llmPassages(input: EnrichInput, docs: LlmSourceDoc[]): Passage[] {
  const ids = itemIdentifiers(input.item);
  const identity: ItemIdentity = { name: itemName(input.item), brand: ids.brand, identifiers: [...ids.gtin, ...ids.mpn, ...ids.sku] };
  const words = [identity.name ?? '', ...identity.identifiers]
    .join(' ')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length >= 3);
  const ranked = docs
    .map((d, i) => ({ d, i, m: matchPage(identity, d.doc) }))
    .sort((a, b) => Number(b.m.kind !== 'none') - Number(a.m.kind !== 'none') || a.i - b.i);
  const pages = ranked.slice(0, 6).map(({ d }) => pagePassage(d.source, d.doc, input.output_schema, words));
  return boundPassages([...inputPassages(input.item), ...pages]);
}

/**
 * The LLM step of extraction (docs/api-enrichment.md "Review info" `field_methods: llm`): one structured-output call
 * over the evidence passages (model and reasoning effort by `options.speed`, src/enrichment/llm/speed.ts), merged into the deterministic result by {@link mergeLlmAnswer}
 * (deterministic values kept unless contradicted; LLM-only values must be grounded; with
 * `validate_semantics`, the model's values pass the same semantic checks as deterministic
 * ones). Never throws: on an API error, timeout or malformed answer the deterministic result is
 * returned with the flag `llm_failed` and the reason in `reasoning`; tokens are counted whenever
 * the server reported them.
 */
export async function refineWithLlm(
  llm: LlmClient,
  input: EnrichInput,
  docs: LlmSourceDoc[],
  result: EnrichmentResult,
): Promise<{ result: EnrichmentResult; usage: EngineUsage }> {
  const usage: EngineUsage = { search_calls: 0, pages_fetched: 0, llm_calls: 1, llm_prompt_tokens: 0, llm_completion_tokens: 0 };
  const fields = input.output_schema;
  if (fields.length === 0) return { result, usage: { ...usage, llm_calls: 0 } };
  const passages = llmPassages(input, docs);
  try {
    const { data, usage: tokens } = await completeJson(
      llm,
      buildMessages(input, result, passages),
      responseSchema(
        fields,
        passages.map((p) => p.source),
      ),
      callForSpeed(llm.config, input.options.speed),
    );
    usage.llm_prompt_tokens = tokens.prompt_tokens;
    usage.llm_completion_tokens = tokens.completion_tokens;
    if (!data || typeof data !== 'object' || typeof (data as LlmAnswer).fields !== 'object') throw new Error('LLM answer lacks "fields"');
    const merged = mergeLlmAnswer(result, data as LlmAnswer, passages, input);
    return { result: merged.result, usage };
  } catch (err) {
    const reported = (err as { usage?: { prompt_tokens: number; completion_tokens: number } }).usage;
    if (reported) {
      usage.llm_prompt_tokens = reported.prompt_tokens;
      usage.llm_completion_tokens = reported.completion_tokens;
    }
    const message = err instanceof Error ? err.message : String(err);
    const review = {
      ...result.review_info,
      flags: [...result.review_info.flags, 'llm_failed'],
      reasoning: `${result.review_info.reasoning} LLM step failed (${message.slice(0, 200)}); deterministic values kept.`,
    };
    return { result: { ...result, review_info: review }, usage };
  }
}
