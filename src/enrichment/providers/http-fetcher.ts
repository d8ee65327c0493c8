import type { IncomingHttpHeaders } from 'node:http';
import type { HttpFetcherOptions } from '../../config';
import { Agent, request, type Dispatcher } from 'undici';
import { RetryLaterError, type FetchedPage, type FetchOptions, type FetchOutcome, type Fetcher, type HttpExchange } from '../research/types';
import { assertFetchableUrl, guardedLookup } from './address-policy';
import type { CachedResponse, FetchState, StoredRender } from './fetch-state';
import { cachePolicy, reusable } from './http-cache';
import { isChallengePage, outcomeOf, retryAfterMs } from './fetch-outcome';
import { robotsRules, type RobotsFetch, type RobotsRules } from './robots';

/** Limits, identity and politeness of the live fetcher: config `fetch` (src/config.ts). */
export type { HttpFetcherOptions };

/** A fetch refused before any request (not an absolute http(s) URL, a non-public address) or a redirect loop. */
export class FetchError extends Error {
  constructor(url: string, reason: string) {
    super(`fetch ${url}: ${reason}`);
    this.name = 'FetchError';
  }
}

/** Content types whose bodies are read: HTML/XHTML/XML pages and PDF documents. */
const READABLE = /^\s*(text\/html|application\/xhtml\+xml|application\/xml|text\/xml|application\/(x-)?pdf)/i;

/** Redirect hops followed for robots.txt (RFC 9309 §2.3.1.2: at least five). */
const ROBOTS_REDIRECTS = 5;

/**
 * A page served from its stored rendering (`FetchState.renders`): the DOM as the body, the DOM and
 * screenshot as `render` exchanges (`urn:dom:<url>`, `urn:view:<url>`: WARC resource records).
 */
function renderedPage(url: string, r: StoredRender, exchanges: HttpExchange[]): FetchedPage {
  const body = Buffer.from(r.html, 'utf8');
  const resource = (uri: string, type: string, bytes: Buffer): HttpExchange => ({
    url: uri,
    started_at: r.rendered_at,
    request_headers: [],
    status: 200,
    response_headers: [['content-type', type]],
    body: bytes,
    purpose: 'render',
  });
  return {
    url,
    final_url: r.final_url,
    status: 200,
    content_type: 'text/html; charset=utf-8',
    body,
    fetched_at: r.rendered_at,
    outcome: 'ok',
    rendered: true,
    exchanges: [...exchanges, resource(`urn:dom:${url}`, 'text/html; charset=utf-8', body), resource(`urn:view:${url}`, 'image/png', r.screenshot)],
  };
}

/** What one request gave: the exchange, a redirect target, the outcome when it ended the fetch. */
interface Hop {
  exchange: HttpExchange;
  headers: IncomingHttpHeaders;
  location?: string;
  contentType: string;
  /** Set when no usable answer came: timeout, too large, network failure. */
  failed?: FetchOutcome;
  readable: boolean;
}

function headerPairs(headers: IncomingHttpHeaders): Array<[string, string]> {
  return Object.entries(headers).flatMap(([k, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, String(x)])));
}

/** Reads a body up to `maxBytes`; null when it is larger (the stream is destroyed). */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The outcome of a request that threw: timeout, over-size body, or another network failure. */
function failureOf(err: unknown, signal: AbortSignal): FetchOutcome {
  const code = (err as { code?: string }).code;
  if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  if ((err as Error).message?.includes('byte cap')) return 'too_large';
  return 'server_error';
}

/** True when a request failed because its address was refused by the policy (an SSRF guard, not a site's failure). */
function refusedAddress(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  return e.code === 'EBLOCKEDADDRESS' || e.cause?.code === 'EBLOCKEDADDRESS' || e.name === 'BlockedAddressError';
}

/**
 * `url` parsed as an absolute URL the fetcher may request (see assertFetchableUrl).
 * @throws FetchError when it is not an absolute URL or names a refused address
 */
function fetchableUrl(url: string, allowPrivate: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FetchError(url, 'not an absolute URL');
  }
  try {
    assertFetchableUrl(parsed, allowPrivate);
  } catch (err) {
    throw new FetchError(url, (err as Error).message);
  }
  return parsed;
}

/** A page reused from the cache (fresh, or confirmed by a 304 exchange). */
function fromCache(url: string, cached: CachedResponse, cache: FetchedPage['cache'], exchanges: HttpExchange[]): FetchedPage {
  return {
    url,
    final_url: cached.final_url,
    status: cached.status,
    content_type: cached.content_type,
    body: cached.body,
    fetched_at: cached.fetched_at.toISOString(),
    outcome: 'ok',
    cache,
    exchanges: [
      ...exchanges,
      {
        url: cached.final_url,
        started_at: cached.fetched_at.toISOString(),
        request_headers: [],
        status: cached.status,
        response_headers: cached.response_headers,
        body: cached.body,
        stored: true,
      },
    ],
  };
}

/**
 * The live {@link Fetcher} over HTTP(S) with undici, polite and cached through `state`, the
 * fetch state every worker shares (fetch-state.ts; the service keeps it in PostgreSQL:
 * src/services/fetching/) (docs/research.md, "The live web"):
 * - every hop's URL must be http(s) and resolve only to public addresses (address-policy.ts)
 *   unless `allowPrivate`; redirects are followed hop by hop up to `maxRedirects`;
 * - robots.txt (RFC 9309, robots.ts) is read per origin before any other request to it and
 *   applies to every hop; a forbidden page is never requested (`robots_denied`); callers of this
 *   fetcher that need an origin's rules while they are being read wait for that one read
 *   (single-flight, in this process: each worker process reads at most once per origin at a time,
 *   and the stored copy in `state.robots` serves every process after);
 * - every request to a host (robots.txt included) takes a shared slot and its spaced start
 *   (`state.hosts`); robots.txt `Crawl-delay` widens the spacing up to `crawlDelayMaxS`;
 * - a 200 page is stored with its cache policy (http-cache.ts) in `state.cache`: reused without a request within
 *   `maxAgeS`, revalidated with If-None-Match / If-Modified-Since after (a 304 reuses it);
 * - each answer is classified (fetch-outcome.ts); 429/503 with `Retry-After` ≤ `retryAfterMaxS`
 *   throws {@link RetryLaterError} when the call passes `defer_retry`, else it is a `server_error`;
 * - every exchange (request and response heads and body) is returned in `exchanges` for WARC;
 * - a page rendered in headless Chromium within `maxAgeS` (`state.renders`) is served as its
 *   rendered DOM (`rendered: true`).
 * Outcomes other than `ok` come back as pages (status 0 when no answer arrived), never thrown.
 * @throws FetchError for a URL that is not absolute http(s), a refused address or a redirect loop;
 *   RetryLaterError as above
 * Long on purpose: a closure whose `fetch` shares the agent, host politeness and robots cache; `fetch` walks a redirect chain in order.
 */
export function createHttpFetcher(state: FetchState, options: HttpFetcherOptions): Fetcher & { close(): Promise<void> } {
  const dispatcher = new Agent({
    connect: { timeout: options.connectTimeoutMs, lookup: guardedLookup(options.allowPrivate) },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const politeness = state.hosts;
  const baseHeaders: Array<[string, string]> = [
    ['user-agent', options.userAgent],
    ['accept', 'text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5'],
    ['accept-language', 'en;q=0.9,*;q=0.5'],
  ];

  /** One polite request; never throws for HTTP or network failures (see Hop.failed), only for refused addresses. */
  const hop = async (url: URL, extra: Record<string, string>, anyType: boolean, purpose?: HttpExchange['purpose']): Promise<Hop> => {
    assertFetchableUrl(url, options.allowPrivate);
    const grant = await politeness.acquire(url.host);
    const requestHeaders: Array<[string, string]> = [...baseHeaders, ...Object.entries(extra)];
    const exchange: HttpExchange = {
      url: url.href,
      // The grant's time: one clock (the shared politeness state's) for when requests to a host start.
      started_at: grant.started_at,
      request_headers: requestHeaders,
      status: 0,
      response_headers: [],
      body: Buffer.alloc(0),
      purpose,
    };
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      const res = await request(url, { dispatcher, method: 'GET', headers: Object.fromEntries(requestHeaders), signal });
      exchange.status = res.statusCode;
      exchange.response_headers = headerPairs(res.headers);
      const contentType = String(res.headers['content-type'] ?? '');
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && location && res.statusCode !== 304) {
        await res.body.dump();
        return { exchange, headers: res.headers, location: String(location), contentType, readable: false };
      }
      const readable = anyType || READABLE.test(contentType);
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > options.maxBytes) {
        await res.body.dump();
        return { exchange, headers: res.headers, contentType, readable, failed: 'too_large' };
      }
      const body = await readCapped(res.body, options.maxBytes);
      if (!body) return { exchange, headers: res.headers, contentType, readable, failed: 'too_large' };
      exchange.body = body;
      return { exchange, headers: res.headers, contentType, readable };
    } catch (err) {
      if (refusedAddress(err)) throw new FetchError(url.href, (err as Error).message);
      return { exchange, headers: {}, contentType: '', readable: false, failed: failureOf(err, signal) };
    } finally {
      await grant.release();
    }
  };

  /** GET <origin>/robots.txt through the same politeness, following up to five redirects; status 0 when unreachable. */
  const fetchRobots = async (origin: string, exchanges: HttpExchange[]): Promise<RobotsFetch> => {
    let current = new URL('/robots.txt', origin);
    for (let redirects = 0; redirects <= ROBOTS_REDIRECTS; redirects++) {
      let res: Hop;
      try {
        res = await hop(current, {}, true, 'robots');
      } catch {
        return { status: 0, body: '' };
      }
      exchanges.push(res.exchange);
      if (res.location === undefined) return res.failed ? { status: 0, body: '' } : { status: res.exchange.status, body: res.exchange.body.toString('utf8') };
      current = new URL(res.location, current);
    }
    return { status: 0, body: '' };
  };

  /**
   * Origin → its robots.txt rules being looked up (stored copy or a fetch): concurrent callers for
   * one origin share the lookup, so several rows starting together make one robots.txt request.
   * An entry lives only while its lookup runs; the stored copy (`state.robots`) is the cache.
   * The robots.txt exchanges go to the evidence of the caller that started the lookup.
   */
  const robotsInFlight = new Map<string, Promise<RobotsRules>>();
  const sharedRobotsRules = (origin: string, exchanges: HttpExchange[]): Promise<RobotsRules> => {
    const running = robotsInFlight.get(origin);
    if (running) return running;
    const lookup = robotsRules(state.robots, origin, options.userAgent, options.robotsCacheS, () => fetchRobots(origin, exchanges)).finally(() =>
      robotsInFlight.delete(origin),
    );
    robotsInFlight.set(origin, lookup);
    return lookup;
  };

  /**
   * Whether robots.txt lets us fetch `url` (reading and caching the origin's robots.txt first):
   * `allowed`, else `unreachable` (robots.txt could not be read) or `disallowed`; records its Crawl-delay.
   */
  const robotsAllow = async (url: URL, exchanges: HttpExchange[]): Promise<'allowed' | 'disallowed' | 'unreachable'> => {
    const rules = await sharedRobotsRules(url.origin, exchanges);
    const delay = rules.crawlDelayS === undefined ? null : Math.round(Math.min(rules.crawlDelayS, options.crawlDelayMaxS) * 1000);
    await politeness.setCrawlDelay(url.host, delay);
    return rules.allows(url.href) ? 'allowed' : rules.unreachable ? 'unreachable' : 'disallowed';
  };

  return {
    async fetch(url: string, fetchOptions: FetchOptions = {}): Promise<FetchedPage> {
      const fetched_at = new Date().toISOString();
      let current = fetchableUrl(url, options.allowPrivate);
      const exchanges: HttpExchange[] = [];
      const page = (outcome: FetchOutcome, status: number, contentType = '', body: Buffer = Buffer.alloc(0)): FetchedPage => ({
        url,
        final_url: current.href,
        status,
        content_type: contentType,
        body,
        fetched_at,
        outcome,
        exchanges,
      });
      const denied = (robots: 'disallowed' | 'unreachable'): FetchedPage => ({
        ...page('robots_denied', 0),
        ...(robots === 'unreachable' ? { robots_unreachable: true } : {}),
      });
      const robots = await robotsAllow(current, exchanges);
      if (robots !== 'allowed') return denied(robots);
      const rendered = await state.renders.loadRender(url, options.maxAgeS);
      if (rendered) return renderedPage(url, rendered, exchanges);
      const cached = await state.cache.load(url);
      if (cached && reusable(cached, options.maxAgeS)) return fromCache(url, cached, 'fresh', exchanges);
      const requestHeads = { url, method: 'GET', headers: Object.fromEntries(baseHeaders) };
      for (let redirects = 0; ; redirects++) {
        const hopRobots = redirects > 0 ? await robotsAllow(current, exchanges) : 'allowed';
        if (hopRobots !== 'allowed') return denied(hopRobots);
        const conditional = redirects === 0 && cached ? (cached.policy.revalidationHeaders(requestHeads) as Record<string, string>) : {};
        const validators = Object.fromEntries(Object.entries(conditional).filter(([k]) => k === 'if-none-match' || k === 'if-modified-since'));
        const res = await hop(current, validators, false);
        exchanges.push(res.exchange);
        if (res.failed) return page(res.failed, res.exchange.status, res.contentType);
        const status = res.exchange.status;
        if (status === 304 && cached) {
          const { policy } = cached.policy.revalidatedPolicy(requestHeads, { status, headers: res.headers });
          await state.cache.markRevalidated(url, policy);
          return fromCache(url, cached, 'revalidated', exchanges);
        }
        if (res.location !== undefined) {
          if (redirects >= options.maxRedirects) throw new FetchError(url, `more than ${options.maxRedirects} redirects`);
          const next = new URL(res.location, current);
          try {
            assertFetchableUrl(next, options.allowPrivate);
          } catch (err) {
            throw new FetchError(url, (err as Error).message);
          }
          current = next;
          continue;
        }
        const body = res.exchange.body;
        const challenge = (status === 403 || status === 503 || status === 429 || status === 200) && isChallengePage(body, res.headers);
        if ((status === 429 || status === 503) && !challenge) {
          const delay = retryAfterMs(res.headers['retry-after']);
          if (delay !== null && fetchOptions.defer_retry && delay <= options.retryAfterMaxS * 1000) throw new RetryLaterError(url, delay);
        }
        const outcome = outcomeOf(status, res.readable, challenge);
        if (outcome === 'ok' && status === 200)
          await state.cache.store({
            url,
            final_url: current.href,
            status,
            content_type: res.contentType,
            response_headers: res.exchange.response_headers,
            body,
            policy: cachePolicy({ request: requestHeads, response: { status, headers: res.headers } }),
            fetched_at: new Date(res.exchange.started_at),
          });
        return page(outcome, status, res.contentType, res.readable ? body : Buffer.alloc(0));
      }
    },
    close: () => dispatcher.close(),
  };
}
