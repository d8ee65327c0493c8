import { buildCorpus, MAX_PHRASE, phraseCount } from '../../../src/enrichment/text/corpus';
import { choiceProbabilities, trainReranker, type RankingList, type SparseFeatures } from '../../../src/enrichment/text/rerank';
import { catalogValuesOf, noneFeatures, spanFeatures } from '../../../src/enrichment/text/span-features';
import { tokenize } from '../../../src/enrichment/text/tagger';

const features = (...names: string[]): SparseFeatures => new Map(names.map((n) => [n, 1]));

describe('corpus phrase counts', () => {
  const texts = ['The Body Shop Strawberry Conditioner', 'The Body Shop Mango Conditioner, 8 oz', 'Body Wash, Mango\nThe Body Shop in the description'];
  const stats = buildCorpus(texts);

  it('counts the other texts whose title holds the phrase, never the text itself', () => {
    const own = tokenize(texts[0]!);
    // "the body shop": the second title only (the third has it in its description).
    expect(phraseCount(stats, texts[0]!, own, 0, 3)).toBe(1);
    // "body": the second and third titles.
    expect(phraseCount(stats, texts[0]!, own, 1, 2)).toBe(2);
    // "strawberry" occurs in no other text.
    expect(phraseCount(stats, texts[0]!, own, 3, 4)).toBe(0);
  });

  it('counts every text for a text outside the corpus', () => {
    const text = 'The Body Shop Mango Butter';
    const tokens = tokenize(text);
    expect(phraseCount(stats, text, tokens, 0, 3)).toBe(2);
    expect(phraseCount(stats, text, tokens, 3, 4)).toBe(2);
  });

  it('answers 0 for empty, out-of-range and too long ranges', () => {
    const own = tokenize(texts[1]!);
    expect(phraseCount(stats, texts[1]!, own, 2, 2)).toBe(0);
    expect(phraseCount(stats, texts[1]!, own, 0, own.length + 1)).toBe(0);
    const long = Array.from({ length: MAX_PHRASE + 1 }, (_, i) => `w${i}`).join(' ');
    const twice = buildCorpus([long, long]);
    expect(phraseCount(twice, 'other', tokenize(long), 0, MAX_PHRASE)).toBe(2);
    expect(phraseCount(twice, 'other', tokenize(long), 0, MAX_PHRASE + 1)).toBe(0);
  });
});

describe('span features', () => {
  const values = catalogValuesOf({ Brand: ['Paul Mitchell', 'Paul Mitchell', 'Aveda'] });
  const corpus = buildCorpus(['Paul Mitchell Tea Tree Shampoo', 'Paul Mitchell Awapuhi Conditioner', 'Aveda Blue Malva, 8 oz']);
  const text = 'Paul Mitchell Forever Blonde Conditioner, 24 Fl Oz';
  const tokens = tokenize(text);
  const at = (from: number, to: number, rank = 0) => spanFeatures({ text, tokens, from, to, probability: 0.5, rank }, 'Brand', values.get('Brand'), corpus);

  it('reads the catalog: a known value with its frequency, a run inside one, a span holding one', () => {
    expect(at(0, 2).get('known')).toBe(1);
    expect(at(0, 2).get('knownN=1')).toBe(1);
    expect(at(0, 2).get('Brand|known')).toBe(1);
    expect(at(1, 2).has('known')).toBe(false);
    expect(at(1, 2).get('inKnown')).toBe(1);
    expect(at(0, 4).get('hasKnown')).toBe(1);
    expect(at(0, 4).has('known')).toBe(false);
  });

  it('reads the corpus: how often the span stands as a phrase and what follows it elsewhere', () => {
    // "paul mitchell" is in two other titles, each time followed by another word than "forever".
    expect(at(0, 2).get('df=1')).toBe(1);
    expect(at(0, 2).get('next=0')).toBe(1);
    expect(at(0, 3).get('df=0')).toBe(1);
    expect(at(0, 3).get('next=-')).toBe(1);
  });

  it('reads the span: tagger probability and rank, length, title segment, place', () => {
    const f = at(2, 5, 5);
    expect(f.get('logp')).toBeCloseTo(Math.log(0.5));
    expect(f.get('rank=3')).toBe(1);
    expect(f.get('len=3')).toBe(1);
    // "Forever Blonde Conditioner" ends before the comma but does not start a segment.
    expect(f.get('seg=01')).toBe(1);
    expect(f.has('first')).toBe(false);
    expect(at(0, 2).get('first')).toBe(1);
    expect(noneFeatures('Brand')).toEqual(features('none', 'Brand|none'));
  });
});

describe('reranker', () => {
  // The right candidate carries "good"; "bad" marks a decoy; lists without a good candidate are "none".
  const lists: RankingList[] = [];
  for (let i = 0; i < 60; i += 1) {
    const good = i % 3 !== 0;
    const candidates = [features('bad', `noise=${i % 5}`), ...(good ? [features('good', `noise=${(i + 1) % 5}`)] : []), features('bad')];
    if (i % 2 === 0) candidates.reverse();
    lists.push({ candidates, none: features('none'), gold: good ? candidates.findIndex((c) => c.has('good')) : candidates.length });
  }
  const reranker = trainReranker(lists);

  it('learns which candidate is right from its features', () => {
    const p = choiceProbabilities(reranker, [features('bad'), features('good'), features('bad')], features('none'));
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(p[1]).toBeGreaterThan(0.5);
    expect(Math.max(p[0]!, p[2]!, p[3]!)).toBeLessThan(p[1]! / 3);
  });

  it('learns when no candidate is right', () => {
    const p = choiceProbabilities(reranker, [features('bad'), features('bad')], features('none'));
    expect(p[2]).toBeGreaterThan(p[0]!);
    expect(p[2]).toBeGreaterThan(0.5);
  });

  it('is deterministic and ignores lists without candidates', () => {
    const again = trainReranker([...lists, { candidates: [], none: features('none'), gold: 0 }]);
    expect([...again.weights]).toEqual([...reranker.weights]);
  });
});
