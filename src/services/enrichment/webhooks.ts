/**
 * The enrichment webhook (docs/api-enrichment.md "Webhooks"):
 * URL rules, the `enrichment.job.completed` payload, Standard-Webhooks signing, one HTTP attempt
 * and the record of every attempt. Retries are not here: Temporal supplies them (the
 * `deliverWebhook` activity under `webhookDeliveryWorkflow`'s retry policy).
 *
 * Which jobs send it: every job with a `webhook_url` that reaches a final state (`completed`,
 * `failed` or `cancelled`), once per final state, after the job is finalized in PostgreSQL.
 * `status` in the body is the stored status (`cancelled` stays `cancelled`, unlike the poll).
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { errorFields, ValidationError } from '../../lib/errors';
import type { EnrichJobConfig } from '../../schemas/enrich';
import { iso } from '../../lib/time';
import { EnrichmentJob } from '../../models/enrichment-job';
import { WebhookDelivery } from '../../models/webhook-delivery';
import net from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup, isNonPublicAddress } from '../../enrichment/providers/address-policy';

/** Per-attempt timeout of a delivery (ms), docs/api-enrichment.md "Webhooks" and docs/api-reference.md "Limits": 30 s. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 30_000;

/** Event type of the only outbound event (docs/api-enrichment.md "Webhooks"). */
export const WEBHOOK_EVENT_TYPE = 'enrichment.job.completed';

/** Why a webhook URL is refused, or null when it is acceptable. */
export function webhookUrlProblem(raw: string, allowHttpLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhook_url must be an absolute URL';
  }
  if (url.username || url.password) return 'webhook_url must not carry credentials';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'webhook_url must use HTTPS';
  // The WHATWG parser has already normalised 0x7f000001, 2130706433, 127.1 to 127.0.0.1.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (loopback && allowHttpLoopback) return null;
  if (url.protocol === 'http:') {
    return allowHttpLoopback ? 'webhook_url may use plain http only for a loopback host (127.0.0.1, ::1, localhost)' : 'webhook_url must use HTTPS';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) !== 0 && isNonPublicAddress(host))) {
    return 'webhook_url must not point to a loopback, private or link-local address';
  }
  return null;
}

/**
 * Checks `webhook_url` of an enrich request (request time, so the client learns at once).
 * @param allowHttpLoopback config `allowHttpWebhooks` (env ALLOW_HTTP_WEBHOOKS)
 * @throws ValidationError (422, loc `body.webhook_url`) for a non-HTTPS URL unless it is a loopback
 *   http URL and that is allowed
 */
export function assertWebhookUrl(raw: unknown, allowHttpLoopback: boolean): void {
  if (raw === undefined || raw === null) return;
  const problem = typeof raw === 'string' ? webhookUrlProblem(raw, allowHttpLoopback) : 'webhook_url must be a string';
  if (problem) throw ValidationError.at(['body', 'webhook_url'], problem);
}

/**
 * Standard-Webhooks signature header value: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 * The key is the secret's bytes: base64 after a `whsec_` prefix when it decodes as such (the
 * Standard-Webhooks convention), else the secret's UTF-8 bytes.
 * @param timestamp seconds since the epoch, as sent in `webhook-timestamp`
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac('sha256', webhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The HMAC key of a secret (see {@link signWebhook}); receivers use the same rule. */
export function webhookKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const rest = secret.slice('whsec_'.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(rest) && rest.length % 4 === 0) return Buffer.from(rest, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/**
 * Verifies a Standard-Webhooks signed request (for receivers and tests): one of the
 * space-separated `v1,` signatures matches, and the timestamp is within `toleranceS` of now.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  toleranceS = 300,
  nowS = Math.floor(Date.now() / 1000),
): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const ts = Number(headers['webhook-timestamp']);
  const sigs = String(headers['webhook-signature'] ?? '').split(' ');
  if (!id || !Number.isInteger(ts) || Math.abs(nowS - ts) > toleranceS) return false;
  const expected = Buffer.from(signWebhook(secret, id, ts, body));
  return sigs.some((s) => s.length === expected.length && crypto.timingSafeEqual(Buffer.from(s), expected));
}

/** The webhook body (docs/api-enrichment.md "Webhooks"). */
export interface WebhookPayload {
  type: typeof WEBHOOK_EVENT_TYPE;
  job_id: string;
  status: string;
  total_items: number;
  successful: number;
  credits_used: number;
  completed_at: string | null;
  results_url: string;
}

/** One message to deliver: where, what, and the key to sign it with. */
export interface WebhookMessage {
  /** Standard-Webhooks message id, stable across attempts: `msg_<job_id>_<status>`. */
  id: string;
  url: string;
  secret: string;
  payload: WebhookPayload;
}

/**
 * The message of a finished job, read from PostgreSQL, or null when the job has no
 * `webhook_url` or is still running.
 * @param publicUrl config `publicUrl`, the base of `results_url`
 * @throws Error when the job does not exist
 */
export async function loadWebhookMessage(knex: Knex, jobId: string, publicUrl: string): Promise<WebhookMessage | null> {
  type Row = Pick<EnrichmentJob, 'id' | 'status' | 'total_items' | 'successful' | 'credits_used' | 'completed_at'> & {
    webhook_secret: string;
    webhook_url: string | null;
  };
  const job = await EnrichmentJob.query(knex)
    .alias('j')
    .join('organizations as o', 'o.id', 'j.organization_id')
    .findById(jobId)
    .select(
      'j.id',
      'j.status',
      'j.total_items',
      'j.successful',
      'j.credits_used',
      'j.completed_at',
      'o.webhook_secret',
      knex.raw("j.config->>'webhook_url' as webhook_url"),
    )
    .castTo<Row | undefined>();
  if (!job) throw new Error(`Job ${jobId} not found`);
  if (!job.webhook_url || job.status === 'running') return null;
  return {
    id: `msg_${job.id}_${job.status}`,
    url: job.webhook_url,
    secret: job.webhook_secret,
    payload: {
      type: WEBHOOK_EVENT_TYPE,
      job_id: job.id,
      status: job.status,
      total_items: job.total_items,
      successful: job.successful,
      credits_used: job.credits_used,
      completed_at: iso(job.completed_at),
      results_url: `${publicUrl}/api/public/enrich/${job.id}`,
    },
  };
}

/** Outcome of one HTTP attempt. */
export interface AttemptOutcome {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/**
 * Sends one signed POST and waits at most `timeoutMs` for the answer (headers and body).
 * Redirects are not followed (a 3xx is a failed attempt), so a receiver cannot bounce the
 * request to another host. Never throws: transport errors become `{ok: false, error}`.
 * @param signal optional extra abort (activity cancellation)
 */
export async function sendWebhookOnce(
  message: WebhookMessage,
  timeoutMs: number,
  signal?: AbortSignal,
  options: { allowPrivate?: boolean } = {},
): Promise<AttemptOutcome> {
  const body = JSON.stringify(message.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  const timeout = AbortSignal.timeout(timeoutMs);
  // Every address the host resolves to is checked on the connection itself (DNS rebinding
  // included), as the research fetcher does (src/enrichment/providers/address-policy.ts).
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(options.allowPrivate ?? false) } });
  try {
    const res = await undiciFetch(message.url, {
      dispatcher,
      method: 'POST',
      redirect: 'manual',
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'catalog-enrichment-webhooks/1',
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(message.secret, message.id, timestamp, body),
      },
      body,
    });
    await res.arrayBuffer().catch(() => undefined); // drain, within the same timeout
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status_code: res.status, error: ok ? null : `HTTP ${res.status}`, duration_ms: Date.now() - started };
  } catch (err) {
    const timedOut = timeout.aborted;
    const e = errorFields(err);
    const cause = errorFields(e.cause);
    // A refused address is recorded without detail: the attempt log must not tell internal
    // hosts or ports apart.
    if (cause.code === 'EBLOCKEDADDRESS' || e.code === 'EBLOCKEDADDRESS') {
      return { ok: false, status_code: null, error: WEBHOOK_ADDRESS_REFUSED, duration_ms: Date.now() - started };
    }
    const reason = timedOut ? `timed out after ${timeoutMs} ms` : (cause.code ?? cause.message ?? e.message ?? String(err));
    return { ok: false, status_code: null, error: String(reason), duration_ms: Date.now() - started };
  } finally {
    void dispatcher.close();
  }
}

/** The recorded reason of an attempt whose host resolved to a non-public address. */
export const WEBHOOK_ADDRESS_REFUSED = 'refused: the webhook host does not resolve to a public address';

/**
 * Records one attempt (upsert on `(webhook_id, attempt)`: an attempt re-run after a worker crash
 * overwrites its row instead of adding one).
 */
export async function recordWebhookAttempt(
  knex: Knex,
  jobId: string,
  message: Pick<WebhookMessage, 'id' | 'url'>,
  attempt: number,
  outcome: AttemptOutcome,
): Promise<void> {
  await WebhookDelivery.query(knex)
    .insert({
      job_id: jobId,
      webhook_id: message.id,
      url: message.url,
      attempt,
      status_code: outcome.status_code,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
      attempted_at: knex.fn.now(),
      delivered_at: outcome.ok ? knex.fn.now() : null,
    })
    .onConflict(['webhook_id', 'attempt'])
    .merge();
}

/** True when a message was already answered with 2xx (a retried activity then sends nothing). */
export async function webhookDelivered(knex: Knex, messageId: string): Promise<boolean> {
  return Boolean(await WebhookDelivery.query(knex).where({ webhook_id: messageId }).whereNotNull('delivered_at').first().select('id'));
}

/** Delivery state of a job's webhook: its URL, whether the latest message was delivered, every attempt in order. */
export interface WebhookStatus {
  url: string;
  delivered: boolean;
  attempts: WebhookDelivery[];
}

/**
 * Delivery state of a job's webhook for the poll response, or null when the job has no
 * `webhook_url`. `delivered` refers to the latest message (a resumed job sends a new one).
 */
export async function webhookStatus(knex: Knex, job: { id: string; config: EnrichJobConfig }): Promise<WebhookStatus | null> {
  const url = job.config?.webhook_url;
  if (typeof url !== 'string') return null;
  const attempts = await WebhookDelivery.query(knex).where({ job_id: job.id }).orderBy('id');
  const latest = attempts.length ? attempts[attempts.length - 1].webhook_id : null;
  return { url, delivered: attempts.some((r) => r.webhook_id === latest && r.delivered_at !== null), attempts };
}
