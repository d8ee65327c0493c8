import { Agent, request, type Dispatcher } from 'undici';
import type { FetchedPage, Fetcher } from '../research/types';
import { assertFetchableUrl, guardedLookup } from './address-policy';
import { KeyedLimiter } from './host-limiter';

/** Limits and identity of the live fetcher (config `fetch`, env `FETCH_*`). */
export interface HttpFetcherOptions {
  /** Whole fetch incl. redirects and body, ms (FETCH_TIMEOUT_MS). */
  timeoutMs: number;
  /** TCP + TLS connect per connection, ms (FETCH_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** Body bytes read at most per response (FETCH_MAX_BYTES). */
  maxBytes: number;
  /** Redirects followed at most (FETCH_MAX_REDIRECTS). */
  maxRedirects: number;
  /** Requests in flight per host at most (FETCH_PER_HOST_CONCURRENCY). */
  perHostConcurrency: number;
  /** User-Agent header (FETCH_USER_AGENT). */
  userAgent: string;
  /** Allow loopback/private/link-local targets; for tests and closed networks (FETCH_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

/** A fetch that failed below HTTP (refused address, timeout, size cap, redirect loop, network). */
export class FetchError extends Error {
  constructor(url: string, reason: string) {
    super(`fetch ${url}: ${reason}`);
    this.name = 'FetchError';
  }
}

/** Content types whose bodies are read: HTML/XHTML/XML pages and PDF documents. */
const READABLE = /^\s*(text\/html|application\/xhtml\+xml|application\/xml|text\/xml|application\/(x-)?pdf)/i;

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

/**
 * A {@link Fetcher} over HTTP(S) with undici. Per request: every hop's URL must be http(s) and
 * its host must resolve only to public addresses (checked on each connection, see
 * address-policy.ts) unless `allowPrivate`; redirects (301/302/303/307/308 with Location) are
 * followed manually up to `maxRedirects`, each hop re-checked; one total deadline covers all
 * hops and bodies, plus a connect timeout per connection; bodies over `maxBytes` are refused;
 * HTML/XML and PDF bodies are read, other types return their status with an empty body.
 * robots.txt is not consulted (user-initiated, one page per item). HTTP errors return their
 * status (e.g. 404, 503) rather than throwing.
 * @throws FetchError for a refused address, timeout, over-size body, too many redirects or a
 *   network error
 */
export function createHttpFetcher(options: HttpFetcherOptions): Fetcher & { close(): Promise<void> } {
  const dispatcher = new Agent({
    connect: { timeout: options.connectTimeoutMs, lookup: guardedLookup(options.allowPrivate) },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const limiter = new KeyedLimiter(options.perHostConcurrency);
  const headers = {
    'user-agent': options.userAgent,
    accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5',
    'accept-language': 'en;q=0.9,*;q=0.5',
  };

  const hop = (url: URL, signal: AbortSignal): Promise<{ status: number; location?: string; content_type: string; body: Buffer }> =>
    limiter.run(url.host, async () => {
      assertFetchableUrl(url, options.allowPrivate);
      const res = await request(url, { dispatcher, method: 'GET', headers, signal });
      const contentType = String(res.headers['content-type'] ?? '');
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && location) {
        await res.body.dump();
        return { status: res.statusCode, location: String(location), content_type: contentType, body: Buffer.alloc(0) };
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (!READABLE.test(contentType) || declared > options.maxBytes) {
        await res.body.dump();
        if (declared > options.maxBytes) throw new Error(`response of ${declared} bytes exceeds the ${options.maxBytes}-byte cap`);
        return { status: res.statusCode, content_type: contentType, body: Buffer.alloc(0) };
      }
      const body = await readCapped(res.body, options.maxBytes);
      if (!body) throw new Error(`response exceeds the ${options.maxBytes}-byte cap`);
      return { status: res.statusCode, content_type: contentType, body };
    });

  return {
    async fetch(url: string): Promise<FetchedPage> {
      const fetched_at = new Date().toISOString();
      const signal = AbortSignal.timeout(options.timeoutMs);
      let current: URL;
      try {
        current = new URL(url);
      } catch {
        throw new FetchError(url, 'not an absolute URL');
      }
      try {
        for (let redirects = 0; ; redirects++) {
          const res = await hop(current, signal);
          if (res.location === undefined)
            return { url, final_url: current.href, status: res.status, content_type: res.content_type, body: res.body, fetched_at };
          if (redirects >= options.maxRedirects) throw new Error(`more than ${options.maxRedirects} redirects`);
          current = new URL(res.location, current);
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
          throw new FetchError(url, `timed out after ${options.timeoutMs} ms`);
        if (code === 'UND_ERR_CONNECT_TIMEOUT') throw new FetchError(url, `connect timed out after ${options.connectTimeoutMs} ms`);
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
        throw new FetchError(url, `${err instanceof Error ? err.message : String(err)}${cause}`);
      }
    },
    close: () => dispatcher.close(),
  };
}
