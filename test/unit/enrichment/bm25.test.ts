import { Bm25Index } from '../../../src/enrichment/research/bm25';
import { tokenize } from '../../../src/enrichment/research/tokenize';

describe('Bm25Index', () => {
  it('ranks the document with the rarer matching terms first and breaks ties by id', () => {
    const idx = new Bm25Index();
    idx.add('https://b.example/2', 'stainless steel garlic press kitchen');
    idx.add('https://a.example/1', 'stainless steel garlic press kitchen');
    idx.add('https://c.example/3', 'kitchen towel cotton kitchen');
    const hits = idx.search('garlic press');
    expect(hits.map((h) => h.id)).toEqual(['https://a.example/1', 'https://b.example/2']);
    expect(hits[0].score).toBeCloseTo(hits[1].score);
    expect(idx.search('kitchen')[0].id).toBe('https://c.example/3');
  });

  it('honours a filter and returns nothing for unknown terms', () => {
    const idx = new Bm25Index();
    idx.add('x', 'alpha beta');
    idx.add('y', 'alpha gamma');
    expect(idx.search('alpha', (id) => id !== 'x').map((h) => h.id)).toEqual(['y']);
    expect(idx.search('zeta')).toEqual([]);
  });

  it('tokenizes identifiers and folds diacritics', () => {
    expect(tokenize('Kärcher WH-1000XM4 B07FW264WL')).toEqual(['karcher', 'wh', '1000xm4', 'wh1000xm4', 'b07fw264wl']);
  });
});
