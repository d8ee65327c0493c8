import OpenAI from 'openai';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { LlmSettings } from '../../config';
import type { JsonSchema } from './schema';

/** The LLM endpoint (config `llm`, src/config.ts {@link LlmSettings}): any OpenAI-compatible Chat Completions server. */
export type LlmConfig = LlmSettings;

/** Which model one call uses and, for reasoning models, with what effort (src/enrichment/llm/speed.ts picks them). */
export interface LlmCall {
  model: string;
  reasoning_effort?: 'low' | 'medium' | 'high';
}

/** A chat message: text, or (user messages) text and image parts (`image_url`). */
export type LlmMessage = { role: 'system'; content: string } | { role: 'user'; content: string | ChatCompletionContentPart[] };

/** Tokens billed for one call. */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** An LLM endpoint with its openai client, created on first use; createEngine owns one. */
export interface LlmClient {
  readonly config: LlmConfig;
  /** The openai client of `config` (one per LlmClient, so its connections are reused). */
  openai(): OpenAI;
}

/** The client of one endpoint; nothing connects before the first call. */
export function createLlmClient(config: LlmConfig): LlmClient {
  let client: OpenAI | null = null;
  return {
    config,
    openai: () =>
      (client ??= new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, timeout: config.timeoutMs ?? 60_000, maxRetries: config.maxRetries ?? 2 })),
  };
}

/**
 * One Chat Completions call with a strict JSON-schema `response_format` at temperature 0 (with
 * `call.reasoning_effort`: that effort and the server's default temperature, as reasoning models
 * require); `call.model` defaults to `config.model`. Returns the parsed JSON of the first choice
 * and the usage the server reported (zeros when it reports none). Timeouts and retries are the
 * openai client's (`timeout`, `maxRetries`).
 * @throws Error (the openai SDK's APIError subclasses, or ours) on HTTP errors after retries,
 *   timeouts, a refusal, or content that is not JSON
 */
export async function completeJson(
  llm: LlmClient,
  messages: LlmMessage[],
  responseFormat: { type: 'json_schema'; json_schema: { name: string; strict: true; schema: JsonSchema } },
  call?: LlmCall,
): Promise<{ data: unknown; usage: LlmUsage }> {
  const model = call?.model ?? llm.config.model;
  const tuning = call?.reasoning_effort ? { reasoning_effort: call.reasoning_effort } : { temperature: 0 };
  const completion = await llm.openai().chat.completions.create({ model, messages, ...tuning, response_format: responseFormat });
  const usage = { prompt_tokens: completion.usage?.prompt_tokens ?? 0, completion_tokens: completion.usage?.completion_tokens ?? 0 };
  const message = completion.choices[0]?.message;
  if (!message) throw Object.assign(new Error('LLM returned no choice'), { usage });
  if (message.refusal) throw Object.assign(new Error(`LLM refused: ${message.refusal}`), { usage });
  try {
    return { data: JSON.parse(message.content ?? ''), usage };
  } catch {
    throw Object.assign(new Error('LLM answer is not JSON'), { usage });
  }
}
