import type { FetchOutcome } from '../research/types';

/**
 * Markers of bot-challenge and captcha walls served instead of the page: Cloudflare's
 * interstitial ("Just a moment...", "Attention Required! | Cloudflare", `cf_chl_opt`,
 * `/cdn-cgi/challenge-platform/`), DataDome (`captcha-delivery.com`), PerimeterX / HUMAN
 * (`px-captcha`), Imperva Incapsula (`_Incapsula_Resource`), and generic captcha-only pages
 * (a title that is just a captcha / robot check). Matched on the first 64 KiB of HTML.
 */
const CHALLENGE_MARKERS: RegExp[] = [
  /<title>\s*Just a moment\.\.\.\s*<\/title>/i,
  /<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i,
  /window\._cf_chl_opt|\/cdn-cgi\/challenge-platform\//i,
  /captcha-delivery\.com/i,
  /id=["']px-captcha["']/i,
  /_Incapsula_Resource/i,
  /<title>[^<]{0,40}(captcha|are you a robot|robot check|access denied|pardon our interruption)[^<]{0,40}<\/title>/i,
];

/** True when an HTML body (or the response's `cf-mitigated: challenge` header) is a challenge page, not the page asked for. */
export function isChallengePage(body: Buffer, headers: Record<string, string | string[] | undefined>): boolean {
  if (String(headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return true;
  const head = body.subarray(0, 64 * 1024).toString('utf8');
  return CHALLENGE_MARKERS.some((m) => m.test(head));
}

/**
 * The outcome of an HTTP answer: 2xx with a readable type `ok` (`blocked` when it
 * is a challenge page), 2xx of another type `unsupported_type`; 401/403/407/451 and challenge
 * pages `blocked`; 404/410 and other 4xx `not_found`; 5xx and 429 `server_error` (when not
 * rescheduled through Retry-After).
 */
export function outcomeOf(status: number, readable: boolean, challenge: boolean): FetchOutcome {
  if (challenge || [401, 403, 407, 451].includes(status)) return 'blocked';
  if (status >= 200 && status < 300) return readable ? 'ok' : 'unsupported_type';
  if (status === 429 || status >= 500) return 'server_error';
  return 'not_found';
}

/**
 * The delay a `Retry-After` header asks for (RFC 9110 §10.2.3: delay-seconds or an HTTP-date),
 * in ms from `now`; null when absent or unreadable.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
