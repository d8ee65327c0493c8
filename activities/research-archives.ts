/**
 * Activities of researchArchiveIndexWorkflow (workflows/research-archive-index.ts): thin adapters
 * over src/services/research-archives/indexing.ts.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { BlobStore } from '../src/lib/blob-store';
import { ArchiveContentError, indexResearchArchive, markResearchArchiveFailed, type IndexProgress } from '../src/services/research-archives/indexing';
import { ARCHIVE_CONTENT_INVALID } from '../src/contracts/workflows';
import { whileHeartbeating } from './heartbeat';

/** The research archive activities. */
export interface ResearchArchiveActivities {
  /**
   * Indexes an archive from scratch and marks it ready; heartbeats its progress after every batch
   * and on a timer between them.
   * @throws ApplicationFailure `ArchiveContentInvalid` (not retried) when the file is no readable WARC/WACZ
   */
  indexResearchArchive(archiveId: string): Promise<IndexProgress>;
  /** Marks an archive failed with the reason (idempotent). */
  markResearchArchiveFailed(archiveId: string, error: string): Promise<void>;
}

/** Builds the research archive activities over the worker's database and blob store (where uploaded archives are). */
export function createResearchArchiveActivities(deps: { knex: Knex; blobs: BlobStore }): ResearchArchiveActivities {
  return {
    async indexResearchArchive(archiveId) {
      const ctx = Context.current();
      let progress = { records_read: 0, pages_indexed: 0 };
      try {
        // A timer heartbeats the latest progress, also while a batch waits (on a lock, a slow
        // disk), so only a dead worker misses the heartbeat timeout (./heartbeat.ts).
        return await whileHeartbeating(
          ctx,
          () => progress,
          () =>
            indexResearchArchive(deps.knex, deps.blobs, archiveId, (p) => {
              progress = { records_read: p.records_read, pages_indexed: p.pages_indexed };
              ctx.heartbeat(progress);
            }),
        );
      } catch (err) {
        if (err instanceof ArchiveContentError) throw ApplicationFailure.nonRetryable(err.message, ARCHIVE_CONTENT_INVALID);
        throw err;
      }
    },
    async markResearchArchiveFailed(archiveId, error) {
      await markResearchArchiveFailed(deps.knex, archiveId, error);
    },
  };
}
