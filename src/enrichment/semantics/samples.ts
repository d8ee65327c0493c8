/**
 * The shape of a value, for `sample_values` (docs/api-enrichment.md "Enrichment jobs": "examples
 * guiding extraction"): web extraction ranks readings shaped like the samples higher
 * (engine.ts `vote`). A shape keeps what a value is made of and in which order, not its
 * content: letters → `a` (any script, any case), digits → `9`, white space → one space, other
 * characters as they are, runs of the same class collapsed. So `SKU-12345` and `ABC-9` share
 * the shape `a-9`, `199.99` and `5.49` share `9.9`, while `1,299.00` (`9,9.9`) differs.
 */

/** The shape of one value (see the module comment). */
export function shapeOf(value: unknown): string {
  let out = '';
  for (const ch of String(value).normalize('NFKC').trim()) {
    const c = /\p{L}/u.test(ch) ? 'a' : /\p{Nd}/u.test(ch) ? '9' : /\s/u.test(ch) ? ' ' : ch;
    if (!(out.endsWith(c) && (c === 'a' || c === '9' || c === ' '))) out += c;
  }
  return out;
}

/** The shapes of a field's `sample_values` (empty without samples). */
export function sampleShapes(samples: ReadonlyArray<string | number | boolean> | undefined): Set<string> {
  return new Set((samples ?? []).filter((s) => String(s).trim() !== '').map(shapeOf));
}
