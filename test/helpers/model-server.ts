import { readBody, startServer } from '../unit/providers/fixtures';

/** A chat completion request as an OpenAI-compatible server receives it (the parts tests read). */
export interface ChatRequest {
  model: string;
  temperature?: number;
  reasoning_effort?: string;
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }>;
  response_format: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
}

/** What the server answers one request: the JSON content of the assistant message, or an HTTP error status. */
export type ModelAnswer = { content: unknown } | { status: number };

/** A recording OpenAI-compatible Chat Completions server on 127.0.0.1 (see {@link startModelServer}). */
export interface ModelServer {
  /** Base URL for `OPENAI_BASE_URL` (`…/v1`). */
  baseUrl: string;
  /** Every request received, in order. */
  requests: ChatRequest[];
  /** The requests whose `response_format.json_schema.name` is `name` (`enrichment`, `field_fit`, `judgment`). */
  named(name: string): ChatRequest[];
  close(): Promise<void>;
}

/** The JSON the user message of a request carries: its text, or the text part of a multi-part message. */
export function userJson(req: ChatRequest): Record<string, unknown> {
  const content = req.messages.find((m) => m.role === 'user')?.content;
  const text = typeof content === 'string' ? content : (content ?? []).find((p) => p.type === 'text')?.text;
  return JSON.parse(text ?? '{}');
}

/**
 * Starts an OpenAI-compatible server (`POST /v1/chat/completions`, bearer `test-key`) that records
 * each request and answers with `answer(request)`: the content as the assistant's message (usage
 * 100 + 20 tokens), or an error status.
 */
export async function startModelServer(answer: (req: ChatRequest) => ModelAnswer): Promise<ModelServer> {
  const requests: ChatRequest[] = [];
  const server = await startServer(async (req, res) => {
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return res.writeHead(404).end();
    if (req.headers.authorization !== 'Bearer test-key')
      return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
    const body = JSON.parse(await readBody(req)) as ChatRequest;
    requests.push(body);
    const out = answer(body);
    if ('status' in out) return res.writeHead(out.status, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream down"}}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(out.content), refusal: null } }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
  });
  return {
    baseUrl: server.url('/v1'),
    requests,
    named: (name) => requests.filter((r) => r.response_format?.json_schema?.name === name),
    close: server.close,
  };
}
