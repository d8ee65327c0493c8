/**
 * The model's part of `POST /public/judge` (docs/api-enrichment.md "Judging"): with a model
 * configured (env `OPENAI_BASE_URL`), each row goes to it with the catalog's quality prompt, the
 * request's `prompt`, the fields' definitions and the row's images, and its decision is the
 * answer. The rules (./judge.ts judgeRow) stay: they are the fallback when the call fails, and a
 * cross-check (a row the rules fail and the model passes goes to review, flagged). Without a
 * model the rules decide and each given option that needed one is named in `meta.notices`.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { completeJson, createLlmClient, type LlmCall, type LlmClient, type LlmConfig, type LlmUsage } from '../../../enrichment/llm/client';
import type { JsonSchema } from '../../../enrichment/llm/schema';
import { callForSpeed, judgeSpeed } from '../../../enrichment/llm/speed';
import type { OutputField } from '../../../enrichment/types';

/**
 * The parts of a judge judgment (./judge.ts `Judgment`, docs/api-enrichment.md "Judging") the model's part reads
 * and writes; declared here so this module does not import the judge (no import cycle).
 */
export interface Judgment {
  decision: 'pass' | 'review_required' | 'fail';
  confidence: 'high' | 'medium' | 'low';
  reasons: string[];
  field_issues: Array<{ field: string; message: string }>;
  /** Who decided: the model (with the rules as cross-check) or the rules alone. */
  method?: 'llm' | 'rules';
  /** The rules' decision, when the model decided. */
  rule_decision?: 'pass' | 'review_required' | 'fail';
  /** `model_passed_rule_failure`, `rules_disagree`, `llm_failed`. */
  flags?: string[];
}

/** The client of the configured endpoint, or null without one; created once by the judge route. */
export function judgeLlm(config: LlmConfig | null): LlmClient | null {
  return config ? createLlmClient(config) : null;
}

/** What the model reads besides the row (the request and the catalog). */
export interface JudgeContext {
  fields: OutputField[];
  /** The catalog's quality prompt (`catalog_id`), if it has one. */
  qualityPrompt: string | null;
  prompt?: string;
  /** The request's `model`: a tier (`fast|medium|high`, or an enrich `speed`) or a model name. */
  model?: string;
  /** `true`: the image URLs among the row's values; an object: row index (as a string) → URLs. */
  images?: boolean | Record<string, string[]>;
}

/** What the model's part adds to the judge's `meta`. */
export interface JudgeModelMeta {
  method: 'llm' | 'rules';
  /** The model the rows went to; without one, the request's `model` as given. */
  model: string | null;
  images_used: boolean;
  /** Rows the model could not judge (the rules' judgment stands for them). */
  llm_failed_rows: number;
  /** Model calls made and the tokens the server reported for them (zeros without a model). */
  llm_usage: { calls: number; prompt_tokens: number; completion_tokens: number };
  /** Options given that had no effect, or another one than asked (never silent). */
  notices: string[];
}

/** The model's judgment of one row (strict structured output). */
interface ModelVerdict {
  decision: Judgment['decision'];
  confidence: Judgment['confidence'];
  reasons: string[];
  field_issues: Array<{ field: string; message: string }>;
}

/** Most image URLs sent per row. */
const MAX_IMAGES = 8;
/** Rows judged at once. */
const CONCURRENCY = 4;
const NO_MODEL = 'no model is configured (OPENAI_BASE_URL), so the rows were judged by rules';

const SYSTEM = [
  'You judge product catalog rows for a catalog team before they reach the catalog.',
  'Decide per row: "pass" (ready as it is), "review_required" (a person should look) or "fail" (wrong or unusable values).',
  'Apply the catalog quality rules and the instructions when given, the field definitions, and the images when given',
  '(do they show the product the row describes?). Give short reasons, and field_issues naming the field of each problem.',
].join(' ');

const VERDICT_FORMAT: { type: 'json_schema'; json_schema: { name: string; strict: true; schema: JsonSchema } } = {
  type: 'json_schema',
  json_schema: {
    name: 'judgment',
    strict: true,
    schema: {
      type: 'object',
      properties: {
        decision: { type: 'string', enum: ['pass', 'review_required', 'fail'] },
        confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
        reasons: { type: 'array', items: { type: 'string' } },
        field_issues: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
            additionalProperties: false,
          },
        },
      },
      required: ['decision', 'confidence', 'reasons', 'field_issues'],
      additionalProperties: false,
    },
  },
};

const IMAGE_KEY = /image|photo|picture|thumbnail/i;

function httpUrls(v: unknown): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.filter((u): u is string => typeof u === 'string' && /^https?:\/\/\S+$/i.test(u.trim())).map((u) => u.trim());
}

/**
 * The image URLs of one row the model sees: with `images` an object, its entry for the row's
 * index; with `true`, the http(s) URLs among the row's values of image fields (`image_url` arrays,
 * or fields named image/photo/picture/thumbnail) and of a row-level `images` key. At most
 * {@link MAX_IMAGES}, each once.
 */
export function rowImageUrls(
  row: Record<string, unknown>,
  data: Record<string, unknown>,
  rowIndex: number,
  fields: OutputField[],
  images: JudgeContext['images'],
): string[] {
  if (!images) return [];
  if (typeof images === 'object') return [...new Set(httpUrls(images[String(rowIndex)]))].slice(0, MAX_IMAGES);
  const imageFields = new Set(fields.filter((f) => f.array_element_type === 'image_url').map((f) => f.name));
  const urls = [
    ...httpUrls(row.images),
    ...Object.entries(data)
      .filter(([k]) => imageFields.has(k) || IMAGE_KEY.test(k))
      .flatMap(([, v]) => httpUrls(v)),
  ];
  return [...new Set(urls)].slice(0, MAX_IMAGES);
}

/** The user message of one row: the request and catalog context and the row as JSON, then its images. */
function rowMessage(ctx: JudgeContext, data: Record<string, unknown>, sources: unknown, images: string[]): ChatCompletionContentPart[] {
  const fields = ctx.fields.map((f) => ({
    name: f.name,
    type: f.type,
    description: f.description,
    ...(f.required ? { required: true } : {}),
    ...(f.unit ? { unit: f.unit } : {}),
    ...(f.enum ? { enum: f.enum } : {}),
  }));
  const body = {
    ...(ctx.qualityPrompt ? { catalog_quality_rules: ctx.qualityPrompt } : {}),
    ...(ctx.prompt ? { instructions: ctx.prompt } : {}),
    fields,
    row: data,
    ...(sources ? { sources } : {}),
  };
  return [{ type: 'text', text: JSON.stringify(body) }, ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))];
}

/**
 * The model's decision with the rules' as cross-check: a row the rules fail that the model passes
 * goes to `review_required` (flag `model_passed_rule_failure`); any other disagreement keeps the
 * model's decision at `low` confidence (flag `rules_disagree`). Field issues of both are kept,
 * suggested updates are the rules'.
 */
export function crossCheck<J extends Judgment>(verdict: ModelVerdict, rules: J): J {
  const issues = [...verdict.field_issues];
  for (const i of rules.field_issues) if (!issues.some((x) => x.field === i.field && x.message === i.message)) issues.push(i);
  const base = { ...rules, method: 'llm' as const, rule_decision: rules.decision, field_issues: issues };
  if (verdict.decision === rules.decision) return { ...base, decision: verdict.decision, confidence: verdict.confidence, reasons: verdict.reasons, flags: [] };
  if (rules.decision === 'fail' && verdict.decision === 'pass')
    return {
      ...base,
      decision: 'review_required',
      confidence: 'low',
      reasons: [...verdict.reasons, `The rules fail this row (${rules.reasons.join('; ')}), but the model passed it.`],
      flags: ['model_passed_rule_failure'],
    };
  return {
    ...base,
    decision: verdict.decision,
    confidence: 'low',
    reasons: [...verdict.reasons, `The rules say ${rules.decision}: ${rules.reasons.join('; ')}`],
    flags: ['rules_disagree'],
  };
}

/**
 * The call a judge request's `model` asks for (docs/enrich-options.md "Judging rows"): a tier
 * (`fast|medium|high`, or an enrich speed) takes the configured model of that tier; any other
 * string is a model name, sent as it is to the configured endpoint with the medium tier's effort.
 */
export function judgeCall(config: LlmConfig, model: string | undefined): LlmCall {
  const speed = judgeSpeed(model);
  const tier = callForSpeed(config, speed ?? 'medium');
  return speed || model === undefined ? tier : { ...tier, model };
}

/** One row through the model; the rules' judgment, flagged `llm_failed`, when the call fails. */
async function judgeOne<J extends Judgment>(
  llm: LlmClient,
  call: LlmCall,
  ctx: JudgeContext,
  row: JudgeRowInput<J>,
): Promise<{ judgment: J; failed: boolean; usage: LlmUsage }> {
  try {
    const { data, usage } = await completeJson(
      llm,
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: rowMessage(ctx, row.data, row.sources, row.images) },
      ],
      VERDICT_FORMAT,
      call,
    );
    const verdict = data as ModelVerdict;
    if (!['pass', 'review_required', 'fail'].includes(verdict?.decision)) throw Object.assign(new Error('LLM answer lacks a decision'), { usage });
    return { judgment: crossCheck(verdict, row.rules), failed: false, usage };
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).slice(0, 200);
    return {
      judgment: {
        ...row.rules,
        method: 'rules',
        flags: ['llm_failed'],
        reasons: [...row.rules.reasons, `The model could not judge this row (${why}); the rules decided.`],
      },
      failed: true,
      usage: (err as { usage?: LlmUsage }).usage ?? { prompt_tokens: 0, completion_tokens: 0 },
    };
  }
}

/** One row as the model's part reads it: its values, sources, images and the rules' judgment. */
export interface JudgeRowInput<J extends Judgment = Judgment> {
  data: Record<string, unknown>;
  sources: unknown;
  images: string[];
  rules: J;
}

/**
 * Judges the rows with the model when `llm` is given (see the module comment), else returns the
 * rules' judgments with notices for the options that needed a model.
 * @param rows the rows in order, each with the rules' judgment
 */
export async function judgeWithModel<J extends Judgment>(
  llm: LlmClient | null,
  rows: Array<JudgeRowInput<J>>,
  ctx: JudgeContext,
): Promise<{ judgments: J[]; meta: JudgeModelMeta }> {
  if (!llm) {
    const notices = [
      ...(ctx.prompt?.trim() ? [`prompt: not applied: ${NO_MODEL}`] : []),
      ...(ctx.qualityPrompt?.trim() ? [`catalog quality prompt: not applied: ${NO_MODEL}`] : []),
      ...(ctx.model !== undefined ? [`model: not applied: ${NO_MODEL}`] : []),
      ...(ctx.images ? [`images: not read: ${NO_MODEL}`] : []),
    ];
    const llm_usage = { calls: 0, prompt_tokens: 0, completion_tokens: 0 };
    return {
      judgments: rows.map((r) => r.rules),
      meta: { method: 'rules', model: ctx.model ?? null, images_used: false, llm_failed_rows: 0, llm_usage, notices },
    };
  }
  const call = judgeCall(llm.config, ctx.model);
  const notices: string[] = [];
  const out: Array<{ judgment: J; failed: boolean; usage: LlmUsage }> = [];
  for (let i = 0; i < rows.length; i += CONCURRENCY) out.push(...(await Promise.all(rows.slice(i, i + CONCURRENCY).map((r) => judgeOne(llm, call, ctx, r)))));
  const failed = out.filter((o) => o.failed).length;
  return {
    judgments: out.map((o) => o.judgment),
    meta: {
      method: failed === rows.length ? 'rules' : 'llm',
      model: call.model,
      images_used: out.some((o, i) => !o.failed && rows[i].images.length > 0),
      llm_failed_rows: failed,
      llm_usage: {
        calls: out.length,
        prompt_tokens: out.reduce((n, o) => n + o.usage.prompt_tokens, 0),
        completion_tokens: out.reduce((n, o) => n + o.usage.completion_tokens, 0),
      },
      notices,
    },
  };
}
