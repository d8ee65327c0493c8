import robotsParser from 'robots-parser';
import type { RobotsStore, StoredRobots } from './fetch-state';

/** The rules of one origin's robots.txt as the fetcher applies them. */
export interface RobotsRules {
  /** Whether our product token may fetch `url` (a URL of the same origin). */
  allows(url: string): boolean;
  /** The group's `Crawl-delay` in seconds, when it sets one. */
  crawlDelayS: number | undefined;
  /** robots.txt could not be read (no answer or a 5xx), so everything is disallowed (RFC 9309 §2.3.1.4). */
  unreachable: boolean;
}

/** What fetching an origin's robots.txt gave: its status (0 = unreachable) and body. */
export interface RobotsFetch {
  status: number;
  body: string;
}

/** How long an unreachable or failing robots.txt (complete disallow) is kept before it is asked again, s. */
const FAILURE_CACHE_S = 600;

/**
 * The product token of a User-Agent string (RFC 9309 §2.2.1: the name before `/`, letters,
 * `_` and `-`), which robots.txt groups are matched against.
 */
export function productToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent;
}

/** RFC 9309 §2.3.1: 2xx = parse; 4xx = no restrictions ("unavailable"); 5xx or no answer = complete disallow ("unreachable"). */
function classify(fetched: RobotsFetch): StoredRobots {
  if (fetched.status >= 200 && fetched.status < 300) return { outcome: 'ok', body: fetched.body };
  if (fetched.status >= 400 && fetched.status < 500) return { outcome: 'allow_all', body: '' };
  return { outcome: 'disallow_all', body: '' };
}

function rulesOf(origin: string, stored: StoredRobots, userAgent: string): RobotsRules {
  if (stored.outcome === 'allow_all') return { allows: () => true, crawlDelayS: undefined, unreachable: false };
  if (stored.outcome === 'disallow_all') return { allows: () => false, crawlDelayS: undefined, unreachable: true };
  const robots = robotsParser(`${origin}/robots.txt`, stored.body);
  const token = productToken(userAgent);
  return { allows: (url) => robots.isAllowed(url, token) !== false, crawlDelayS: robots.getCrawlDelay(token), unreachable: false };
}

/**
 * The robots.txt rules of `origin` (`scheme://host[:port]`) for `userAgent`, per RFC 9309 with
 * robots-parser: reused from `store` while fresh (shared by every worker; `cacheS` ≤ 24 h,
 * RFC 9309 §2.4; a failure is asked again after 10 minutes), else fetched with `fetchRobots`
 * and stored. A body is read up to 500 KiB (RFC 9309 §2.5 asks parsers to read at least that).
 * @throws whatever `fetchRobots` or the store throw (an unreachable host is `{status: 0}`, not an error)
 */
export async function robotsRules(
  store: RobotsStore,
  origin: string,
  userAgent: string,
  cacheS: number,
  fetchRobots: () => Promise<RobotsFetch>,
): Promise<RobotsRules> {
  const cached = await store.fresh(origin);
  if (cached) return rulesOf(origin, cached, userAgent);
  const fetched = await fetchRobots();
  const stored = classify({ status: fetched.status, body: fetched.body.slice(0, 500 * 1024) });
  const ttl = stored.outcome === 'disallow_all' ? Math.min(cacheS, FAILURE_CACHE_S) : cacheS;
  await store.save(origin, stored, fetched.status || null, ttl);
  return rulesOf(origin, stored, userAgent);
}
