/**
 * Low-confidence candidates (docs/api-enrichment.md "Enrichment jobs" `low_confidence`; docs/api-enrichment.md "Low-confidence candidates"): weak
 * values kept outside the canonical output, by scope (`field`, `taxonomy_attribute`,
 * `category`), appended at the tail of the result's list and capped at
 * `max_candidates_per_item` (default 8).
 */
import type { EnrichOptions, EnrichmentResult, LowConfidenceCandidate } from '../types';

/** Default cap of candidates per item (docs/api-enrichment.md "Low-confidence candidates"). */
export const DEFAULT_MAX_CANDIDATES = 8;

/** Whether candidates of `scope` are requested (scopes default to `['field']`). */
export function lowConfidenceWanted(options: EnrichOptions, scope: LowConfidenceCandidate['scope']): boolean {
  const lc = options.low_confidence;
  return lc?.enabled === true && (lc.scopes ?? ['field']).includes(scope);
}

/**
 * Appends candidates whose scope is requested to the result (tail placement), keeps at most
 * `max_candidates_per_item`, and recomputes `low_confidence_fields`. Returns how many were
 * kept of those given.
 */
export function addCandidates(result: EnrichmentResult, options: EnrichOptions, candidates: LowConfidenceCandidate[]): number {
  const wanted = candidates.filter((c) => lowConfidenceWanted(options, c.scope));
  if (options.low_confidence?.enabled !== true) return 0;
  const max = options.low_confidence.max_candidates_per_item ?? DEFAULT_MAX_CANDIDATES;
  const before = result.low_confidence_candidates ?? [];
  const all = [...before, ...wanted].slice(0, max);
  result.low_confidence_candidates = all;
  result.low_confidence_fields = [...new Set(all.map((c) => c.name))];
  return all.length - before.length;
}
