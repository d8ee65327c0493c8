import { enrichTaxonomy, etagMatches, normalizeTaxonomy, taxonomyEtag } from '../../../src/services/catalog/taxonomy';
import { ValidationError } from '../../../src/lib/errors';

/** Taxonomy validation and enrichment (docs/api-reference.md "Taxonomy"), without the database. */

describe('normalizeTaxonomy', () => {
  it('finds a long cycle without recursion', () => {
    const nodes: Record<string, { name: string; parent: string | null }> = {};
    for (let i = 0; i < 20000; i++) nodes[`n${i}`] = { name: `N${i}`, parent: `n${(i + 1) % 20000}` };
    expect(() => normalizeTaxonomy({ name: 'T', nodes }, ['body'])).toThrow(ValidationError);
  });

  it('keeps the input order of ids', () => {
    expect(normalizeTaxonomy({ name: 'T', nodes: { b: { name: 'B' }, a: { name: 'A', parent: 'b' } } }, ['body']).node_order).toEqual(['b', 'a']);
  });
});

describe('enrichTaxonomy', () => {
  it('handles a deep chain linearly and computes levels and paths', () => {
    const nodes: Record<string, { name: string; parent: string | null }> = {};
    for (let i = 0; i < 2000; i++) nodes[`n${i}`] = { name: `N${i}`, parent: i === 0 ? null : `n${i - 1}` };
    const t = enrichTaxonomy(normalizeTaxonomy({ name: 'Chain', nodes }, ['body']));
    expect(t.nodes.n1999.level).toBe(1999);
    expect(t.nodes.n1999.path).toHaveLength(2000);
    expect(t.nodes.n0.children).toEqual(['n1']);
  });

  it('lets the nearest ancestor win and own attributes override in all_attributes', () => {
    const t = enrichTaxonomy(
      normalizeTaxonomy(
        {
          name: 'T',
          nodes: {
            c: { name: 'C', parent: 'b', attributes: [{ name: 'x', type: 'c' }] },
            a: {
              name: 'A',
              parent: null,
              attributes: [
                { name: 'x', type: 'a' },
                { name: 'y', type: 'a' },
              ],
            },
            b: { name: 'B', parent: 'a', attributes: [{ name: 'x', type: 'b' }] },
          },
        },
        ['body'],
      ),
    );
    // Root-most attributes first; x is overridden by the nearer b.
    expect(t.nodes.c.inherited_attributes).toEqual([
      { name: 'y', type: 'a', inherited_from: 'a' },
      { name: 'x', type: 'b', inherited_from: 'b' },
    ]);
    expect(t.nodes.c.all_attributes).toEqual([
      { name: 'y', type: 'a', inherited_from: 'a' },
      { name: 'x', type: 'c' },
    ]);
    expect(Object.keys(t.nodes)).toEqual(['c', 'a', 'b']);
  });
});

describe('ETags', () => {
  it('differ by content and match weakly, in lists and with *', () => {
    const a = taxonomyEtag(null);
    const b = taxonomyEtag({ name: 'T', hierarchy_levels: [], nodes: {} });
    expect(a).not.toBe(b);
    expect(etagMatches(`"x", W/${a}`, a)).toBe(true);
    expect(etagMatches('*', a)).toBe(true);
    expect(etagMatches(b, a)).toBe(false);
    expect(etagMatches(undefined, a)).toBe(false);
  });
});
