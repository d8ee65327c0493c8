/**
 * Search index activity: a thin adapter over `catchUpSearchWords` (src/services/catalog/search/search-words.ts:
 * the word index left behind by a restore) and `buildSearchIndex` (src/services/catalog/search/search-count-index.ts),
 * run by searchIndexBuildWorkflow (workflows/search-index-build.ts) and built by
 * {@link createSearchIndexActivities}. Moves only the catalog id and the figures through
 * Temporal (docs/workflows.md "Rules of the craft").
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { logger } from '../src/lib/logger';
import { heartbeatingOneTransaction } from './heartbeat';
import type { SearchIndexBuild } from '../src/contracts/workflows';
import { foldSearchDelta } from '../src/services/catalog/search/search-count-fold';
import { buildSearchIndex } from '../src/services/catalog/search/search-count-index';
import { catchUpSearchWords, SearchWordsCatchUp } from '../src/services/catalog/search/search-words';

/** Failure type of a build deferred because this worker already runs one (retried with backoff). */
export const SEARCH_INDEX_BUSY = 'SearchIndexBuildBusy';

/** A delta of more than this share of the index's items is rebuilt rather than folded (search-count-fold.ts). */
const FOLD_MAX_SHARE = 0.5;

/** The search count index activities registered on the worker; the workflow proxies them by these names. */
export interface SearchIndexActivities {
  /**
   * Catches up the catalog's word index when a restore left it behind (pending word vectors
   * moved into the index in committed batches), then folds the writes since the last build
   * into its search count index when they are at most half its items (search-count-fold.ts;
   * `folded`: the items folded), else builds (or rebuilds) it, each in one REPEATABLE READ
   * transaction, heartbeating while it runs. Idempotent: the
   * catch-up only finds rows still pending, a build replaces the catalog's whole index, and a
   * retry after a crash resumes the catch-up and starts the build over (the lost attempt's
   * transaction was rolled back).
   * @returns the build's figures (items, tokens, min_df, build_ms, and `words_caught_up`: rows
   *   whose pending vector moved into the word index), or null when another build holds the
   *   catalog's advisory lock or the catalog is gone
   * @throws ApplicationFailure `SearchIndexBuildBusy` (retryable) while this worker process
   *   runs another build; the database's error otherwise (retried by the workflow's policy)
   */
  buildSearchIndex(catalogId: string): Promise<(SearchIndexBuild & { words_caught_up: number; folded?: number }) | null>;
  /**
   * Catches up the catalog's word index after a restore (src/services/catalog/search/search-words.ts), alone:
   * run by the workflow when it is signalled during its cool-down. Heartbeats after every
   * committed batch; idempotent and resumable (a retry finds only the rows still pending).
   * @returns rows moved into the word index, whether the flag is clear, time taken
   */
  catchUpSearchWords(catalogId: string): Promise<SearchWordsCatchUp>;
}

/**
 * Builds the search count index activities over the worker's database.
 *
 * One build at a time per worker process: a build is minutes of database work on a large
 * catalog (~2.5 min and ~300 MB for 1,000,000 items, README "Search totals"), so builds of
 * several catalogs run one after the other; a second one fails fast with a retryable
 * `SearchIndexBuildBusy` and Temporal's backoff starts it later (this was the in-process
 * scheduler's one-at-a-time rule before builds moved to Temporal).
 * @returns an object of async functions to pass (with the enrichment activities) to `Worker.create`
 */
export function createSearchIndexActivities(deps: { knex: Knex }): SearchIndexActivities {
  let building: string | null = null;
  return {
    async buildSearchIndex(catalogId) {
      if (building !== null) {
        throw ApplicationFailure.retryable(`this worker is building the search count index of catalog ${building}`, SEARCH_INDEX_BUSY);
      }
      building = catalogId;
      try {
        // The catch-up commits in batches (a retry resumes it); the build is one transaction.
        return await heartbeatingOneTransaction(async (ctx) => {
          const words = await catchUpSearchWords(deps.knex, catalogId);
          if (words.rows > 0) logger.info({ catalog_id: catalogId, attempt: ctx.info.attempt, result: words }, 'word index caught up after a restore');
          // An index that only needs catching up with writes is folded (seconds), not rebuilt.
          const folded = await foldSearchDelta(deps.knex, catalogId, { maxShare: FOLD_MAX_SHARE });
          if (folded) {
            logger.info({ catalog_id: catalogId, attempt: ctx.info.attempt, result: folded }, 'search count index delta folded');
            const { catalog_id, index_items: items, tokens, min_df, ms: build_ms } = folded;
            return { catalog_id, items, tokens, min_df, build_ms, words_caught_up: words.rows, folded: folded.items };
          }
          const built = await buildSearchIndex(deps.knex, catalogId);
          logger.info(
            { catalog_id: catalogId, attempt: ctx.info.attempt, result: built },
            built ? 'search count index built' : 'search count index not built (locked or catalog gone)',
          );
          return built && { ...built, words_caught_up: words.rows };
        });
      } finally {
        building = null;
      }
    },
    async catchUpSearchWords(catalogId) {
      const ctx = Context.current();
      ctx.heartbeat({ rows: 0 });
      const words = await catchUpSearchWords(deps.knex, catalogId, (rows) => ctx.heartbeat({ rows }));
      logger.info({ catalog_id: catalogId, attempt: ctx.info.attempt, result: words }, 'word index caught up after a restore');
      return words;
    },
  };
}
