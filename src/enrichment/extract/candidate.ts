/**
 * One value read from one page by one method, before voting: the shape every candidate reader
 * (./candidates.ts, ./prices.ts) produces and agreement voting (../voting.ts) takes. Types only.
 */
import type { ReviewInfo } from '../types';

/** How a value was read: `review_info.field_methods` (docs/enrich-options.md, "The enrichment engine"). */
export type Method = ReviewInfo['field_methods'][string];

/** One value read from one page by one method, before voting. */
export interface Candidate {
  /** Normalised value: decimal string for prices, ISO code for currency, InStock/OutOfStock, strings, or string[] for images. */
  value: string | string[];
  method: Method;
  /** Prior reliability of this way of reading the value, 0–1. */
  weight: number;
  url: string;
  /** One sentence: where on the page it was found. */
  explanation: string;
  /** True for an identifier read from markup that the page never shows (the engine withholds a GTIN supported only so). */
  markup_only?: boolean;
  /**
   * The unit of a bare-number `value` as its source states it apart from the number: a
   * schema.org QuantitativeValue / PropertyValue `unitCode` (UN/CEFACT Rec 20, e.g. `KGM`) or
   * `unitText`. `coerce` converts from it to the output field's `unit`.
   */
  unit?: string;
  /**
   * Why this reading's value may be wrong although its source is strong (e.g. the page shows
   * another amount as its price than the structured data states): a voted value with a doubtful
   * reading is never `high` confidence, and the doubt is stated as a field issue.
   */
  doubt?: string;
  /**
   * The method of another reading on the same page that read the very same writing of the value
   * (a spec cell that is itself a microdata property written as text): voting counts the two as
   * one reading, not as independent agreement.
   */
  echoes?: Method;
}
