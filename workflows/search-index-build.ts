/**
 * searchIndexBuildWorkflow: builds one catalog's search count index (src/services/catalog/search/search-count-index.ts;
 * docs/api-reference.md "Items": exact search `total`), after catching up its word index when a restore
 * left it behind (src/services/catalog/search/search-words.ts; same activity). Started by the API
 * (temporal/client.ts `startSearchIndexBuild`) when a search of a large catalog finds the index
 * missing or stale or its delta past 5,000 rows (the activity then folds the delta instead of
 * rebuilding, src/services/catalog/search/search-count-fold.ts), when a restore deferred the
 * word index, or when a search finds it deferred,
 * under the id `search-index-<catalog_id>` with reuse policy ALLOW_DUPLICATE and conflict policy
 * FAIL: while one is open for the catalog, another start is "already started" (a no-op); once it
 * closed, a later start runs a new build. The index is derived data and counts are exact
 * without it (GIN fallback), so nothing waits for this workflow.
 *
 * State machine:
 *
 *   building ── buildSearchIndex returned (figures, or null: locked / catalog gone) ──▶ cooling down
 *   building ── attempt failed or deferred (worker busy with another build) ─────────▶ backoff, next attempt
 *   building ── attempts spent ─────────────────────────────────────────────────────▶ failed (SearchIndexNotBuilt)
 *   cooling down ── searchWordsPending signal ──▶ catchUpSearchWords, then cooling down again
 *   cooling down ── timer fired ────────────────────────────────────────────────────▶ completed
 *
 * Cooling down keeps the workflow (and so its id) open until `min_interval_s` (default 60 s) and
 * 10 × the build's own time have passed since the build started: a catalog under heavy writes
 * is rebuilt at most that often, whichever API process asks, and builds take at most ~10 % of
 * the database's time.
 *
 * Retries: the activity's retry policy, 10 s doubling to 5 min, 20 attempts (about 75 minutes);
 * start-to-close 1 h per attempt (a build of 1,000,000 items takes ~2.5 min); heartbeat
 * timeout 60 s, so a dead worker's build is retried after a minute.
 *
 * Continue-as-new: never (one activity and one timer: ~15 events; activity retries add none).
 *
 * Cancellation: the pending attempt or timer is cancelled and the workflow ends Canceled. There is
 * nothing to finalize: a build commits a whole index in one transaction or nothing.
 */
import { ActivityFailure, ApplicationFailure, condition, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SearchIndexActivities } from '../activities/search-index';
import { SEARCH_INDEX_MIN_INTERVAL_S, SearchIndexBuildArgs, SearchIndexBuildResult } from '../src/contracts/workflows';
import { searchWordsPendingSignal } from './definitions';
import { retryPolicy } from '../src/contracts/retry-policies';

/** A build may start again no sooner than this many times its own duration after it started. */
const REBUILD_FACTOR = 10;

/**
 * Builds the search count index of `args.catalog_id`, then stays open for the cool-down (see the
 * state machine above).
 * @returns the build's figures (null when another build held the catalog's lock or the catalog
 *   is gone) and the cool-down (ms)
 * @throws ApplicationFailure `SearchIndexNotBuilt` (non-retryable) when every attempt failed
 */
export async function searchIndexBuildWorkflow(args: SearchIndexBuildArgs): Promise<SearchIndexBuildResult> {
  let wordsPending = false;
  setHandler(searchWordsPendingSignal, () => {
    wordsPending = true;
  });
  const { buildSearchIndex, catchUpSearchWords } = proxyActivities<SearchIndexActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: `${Math.max(1, args.heartbeat_timeout_s ?? 60)} seconds`,
    retry: retryPolicy(`${Math.max(0.1, args.retry_initial_interval_s ?? 10)} seconds`, '5 minutes', 20),
  });
  let built: SearchIndexBuildResult['built'];
  try {
    built = await buildSearchIndex(args.catalog_id);
  } catch (err) {
    // A cancelled attempt arrives as an ActivityFailure too: it stays a cancellation (Canceled).
    if (err instanceof ActivityFailure && !isCancellation(err)) {
      throw ApplicationFailure.nonRetryable(
        `search count index of catalog ${args.catalog_id} not built: ${err.cause?.message ?? err.message}`,
        'SearchIndexNotBuilt',
      );
    }
    throw err;
  }
  const minIntervalMs = Math.max(0, args.min_interval_s ?? SEARCH_INDEX_MIN_INTERVAL_S) * 1000;
  const buildMs = built?.build_ms ?? 0;
  const cooldownMs = Math.max(0, Math.max(minIntervalMs, REBUILD_FACTOR * buildMs) - buildMs);
  // Cool down, catching up the word index whenever a restore signals that it left it behind
  // (a timer, as the plain sleep of histories from before the signal existed).
  const until = Date.now() + cooldownMs;
  let catchUps = 0;
  while (until > Date.now() && (await condition(() => wordsPending, until - Date.now()))) {
    wordsPending = false;
    await catchUpSearchWords(args.catalog_id);
    catchUps += 1;
  }
  return { built, cooldown_ms: cooldownMs, words_catch_ups: catchUps };
}
