import { buildTemplates, matchTemplates, templateKey, type TemplateSet } from '../../../src/enrichment/text/templates';
import { findAll } from '../../../src/enrichment/text/spans';

/** The matches of one RegExp of all the set's keys joined by `|` (what matchTemplates must equal). */
function byOneAlternation(text: string, set: TemplateSet): Array<{ start: number; end: number; text: string; key: string }> {
  if (set.keys.length === 0) return [];
  const re = new RegExp(set.patterns.map((p) => p.source).join('|'), 'giu');
  return findAll(text, re).flatMap((span) => {
    const key = templateKey(span.text);
    return key !== null && set.counts.has(key) ? [{ ...span, key }] : [];
  });
}

const VALUES = [
  '12 Ounce',
  '12 oz',
  'Pack of 6',
  '6-Pack',
  'SPF 30',
  'FGR 12 HTWU 3 PLEGN',
  'FGR 12 WU 3 PLEGN',
  '2 x 4 in',
  'Size 10 W',
  '3.5 mm Jack',
  '1/2 in',
  'Ref. 22',
];

describe('value templates', () => {
  const set = buildTemplates(VALUES.map((value) => ({ value, weight: 1 })));

  it('finds the same leftmost, non-overlapping hits as one alternation of every template', () => {
    const texts = [
      'Coffee 16 Ounce, pack of 12 and a 6-pack',
      'spf 50 sunscreen, SPF-15 lip balm',
      'Part FGR 7 HTWU 9 PLEGN or fgr 1 wu 2 plegn',
      'Board 2 x 4 in, 2x4 in, 3.5mm jack',
      'Shoe size 9 W, 1/2 in pipe, ref. 7',
      // Characters that fold to ASCII letters under the `iu` flags: U+017F (long s), U+212A (Kelvin sign).
      '\u017fpf 20 and pac\u212a of 3',
      'no numbers here at all',
      '12 Ounce12 oz 12oz',
    ];
    let hits = 0;
    for (const text of texts) {
      const expected = byOneAlternation(text, set);
      expect(matchTemplates(text, set)).toEqual(expected);
      hits += expected.length;
    }
    // The texts exercise the matcher: most of them hold templates, the folded ones included.
    expect(hits).toBeGreaterThanOrEqual(12);
  });

  it('reads a new number in a learned shape, and nothing where no template fits', () => {
    expect(matchTemplates('Now in a Pack of 24!', set).map((h) => h.text)).toEqual(['Pack of 24']);
    expect(matchTemplates('Pack without a count', set)).toEqual([]);
  });
});
