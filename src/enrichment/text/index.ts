/**
 * Deterministic attribute-value extraction from product text (offer title, then optionally
 * a description after a line break): the engine's path for `web_search: false` and its
 * text-pattern layer. No LLM, no network. Every value comes with the exact substring of the
 * input it was read from, so it can be cited and grounded.
 *
 * Two layers: the rule layer (rules.ts) works from the schema and the catalog's known
 * values alone; when example items with their texts are available, a tagger learned from
 * them (model.ts) decides the fields whose values the catalog writes verbatim.
 */
import type { OutputField, TextExample } from '../types';
import { beginTextTraining, extractWithModel, trainCrfExcluding, trainGroupedTextModel, trainTextModel, withCorpus } from './model';
import { buildProfiles } from './profile';
import { extractWithProfiles, type TextExtraction } from './rules';

/**
 * Extracts values for `fields` from `text`.
 *
 * - `text`: the offer title, optionally followed by "\n" and a description (matches in the
 *   title are preferred).
 * - `fields`: the output schema; `sample_values` and `enum` act as vocabulary, names and
 *   descriptions as hints (brand, width, UPC, colour, ...).
 * - `knownValues`: values already present in the catalog per field name; duplicates count
 *   as frequency (a value on many items is stronger evidence).
 * - `examples`: optional catalog items with their texts; when given, a tagger is trained on
 *   them (see {@link trainTextModel}; for batches train once and call {@link extractWithModel}).
 *
 * Returns at most one value per non-array field, each with the exact `snippet` it came from.
 * Never throws for unusual text; a field without evidence is simply absent.
 */
export function extractFromText(text: string, fields: OutputField[], knownValues: Record<string, string[]> = {}, examples?: TextExample[]): TextExtraction[] {
  if (examples !== undefined && examples.length > 0) {
    const known = Object.keys(knownValues).length > 0 ? knownValues : undefined;
    return extractWithModel(text, trainTextModel(fields, examples, known));
  }
  return extractWithProfiles(text, buildProfiles(fields, knownValues));
}

export { beginTextTraining, buildProfiles, extractWithModel, extractWithProfiles, trainCrfExcluding, trainGroupedTextModel, trainTextModel, withCorpus };
export type { TextExample, TextExtraction };
export type { PendingTextTraining, TextGroup, TextModel } from './model';
