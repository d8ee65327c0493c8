/**
 * The enrichment domain's per-process caches (src/services/service-caches.ts): what one API process or
 * worker keeps in memory between rows and requests, owned by its dependency object instead of
 * module-level variables (docs/architecture.md "4. Process state lives in objects owned by deps").
 */
import { boundedCache } from '../../lib/bounded-cache';
import type { KnownEvidenceDocs } from './rows/evidence';
import type { JobCategoryExamplesCache } from './rows/category-examples';
import type { JobTextExamplesCache } from './rows/examples';
import type { JobTaxonomyCache } from './rows/job-taxonomy';
import type { JobDocumentsCache } from './rows/knowledge-base';

/** Caches of the enrichment services; one instance per app or worker (least recently used evicted). */
export interface EnrichmentCaches {
  /** Job id → its catalog text examples and item texts (./rows/examples.ts jobTextExamples; 8 jobs). */
  jobTextExamples: JobTextExamplesCache;
  /** Job id → its knowledge-base documents (./rows/knowledge-base.ts jobDocuments; 16 jobs). */
  jobDocuments: JobDocumentsCache;
  /** Job id → its catalog's categorised items (./rows/category-examples.ts jobCategoryExamples; 8 jobs). */
  jobCategoryExamples: JobCategoryExamplesCache;
  /** Job id → its taxonomy (./rows/job-taxonomy.ts jobTaxonomy; 8 jobs; a 5,595-node taxonomy is a few MB once compiled). */
  jobTaxonomies: JobTaxonomyCache;
  /** `<organization>:<sha256>` of evidence documents seen committed (./rows/evidence.ts; 50,000 keys). */
  knownEvidenceDocs: KnownEvidenceDocs;
}

/** Fresh, empty enrichment caches. */
export function createEnrichmentCaches(): EnrichmentCaches {
  return {
    jobTextExamples: boundedCache(8),
    jobDocuments: boundedCache(16),
    jobTaxonomies: boundedCache(8),
    jobCategoryExamples: boundedCache(8),
    knownEvidenceDocs: boundedCache(50_000),
  };
}
