import { extractFromText, extractWithModel, trainGroupedTextModel, trainTextModel, type TextExample } from '../../../src/enrichment/text';
import { labelTokens } from '../../../src/enrichment/text/labels';
import { stemKey } from '../../../src/enrichment/text/spans';
import { marginals, trainCrf } from '../../../src/enrichment/text/crf';
import { tag } from '../../../src/enrichment/text/crf-spans';
import { tokenFeatures, tokenize, tokenShape } from '../../../src/enrichment/text/tagger';
import type { OutputField } from '../../../src/enrichment/types';

const field = (name: string): OutputField => ({ name, type: 'string', description: name });

const BRANDS = ['Lavazza', 'Peet', 'Illy', 'Folgers', 'Maxwell', 'Kicking', 'Tully', 'Dunkin'];
// Every item has its own flavour made of words no other item uses (open-ended values):
// catalog vocabulary alone cannot find a new one, only its place in the title can.
const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'sa', 'vo', 'ne'];
const word = (i: number): string =>
  `${SYLLABLES[i % 8]!.toUpperCase()[0]}${SYLLABLES[i % 8]!.slice(1)}${SYLLABLES[Math.floor(i / 8) % 8]}${SYLLABLES[(i * 3 + 1) % 8]}`;
const FLAVORS = Array.from({ length: 40 }, (_, i) => `${word(2 * i)} ${word(2 * i + 1)}`);
const SIZES = ['12 Ounce', '10 oz', '24 Count', '2 lb'];

/** Synthetic catalog: "<Brand> Ground Coffee, <Flavor>, <Size>", values as the catalog holds them. */
function catalog(): TextExample[] {
  const out: TextExample[] = [];
  for (let i = 0; i < 40; i += 1) {
    const brand = BRANDS[i % BRANDS.length]!;
    const flavor = FLAVORS[i]!;
    const size = SIZES[i % SIZES.length]!;
    out.push({ text: `${brand} Ground Coffee, ${flavor}, ${size}`, values: { Brand: brand, Flavor: flavor, 'Net content': size } });
  }
  return out;
}

describe('tokens', () => {
  it('splits letter/digit runs and single symbols with exact offsets', () => {
    const text = "Women's 3.5g\nDesc";
    const tokens = tokenize(text);
    expect(tokens.map((t) => t.text)).toEqual(['Women', "'", 's', '3', '.', '5g', 'Desc']);
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
    expect(tokens.map((t) => t.title)).toEqual([true, true, true, true, true, true, false]);
    expect(tokens[1]!.spaced).toBe(false);
  });

  it('computes collapsed shapes', () => {
    expect(tokenShape('Women')).toBe('Xx');
    expect(tokenShape('YA24a')).toBe('X9x');
  });
});

describe('linear-chain CRF', () => {
  // The word after "flavor" is the Flavor; words elsewhere are O.
  const words = [
    'mango',
    'lime',
    'kiwi',
    'plum',
    'pear',
    'fig',
    'apple',
    'cherry',
    'lemon',
    'peach',
    'melon',
    'grape',
    'berry',
    'apricot',
    'papaya',
    'banana',
    'orange',
    'date',
    'quince',
    'olive',
  ];
  const sequences = words.map((w) => {
    const tokens = tokenize(`tasty ${w} flavor ${w} drink`);
    return { features: tokenFeatures(tokens, []), labels: [0, 0, 0, 1, 0] };
  });
  const unseen = tokenFeatures(tokenize('tasty guava flavor guava drink'), []);

  it('learns a label from context and generalises to unseen words, confidently on clear data', () => {
    const crf = trainCrf(['Flavor'], sequences);
    const spans = tag(crf, unseen);
    expect(spans[0]).toEqual(expect.objectContaining({ field: 'Flavor', from: 3, to: 4 }));
    expect(spans[0]!.probability).toBeGreaterThanOrEqual(0.8);
    expect(spans[0]!.probability).toBeLessThanOrEqual(1);
    // The nearest alternatives come after it, each once, far less probable.
    expect(new Set(spans.map((s) => `${s.from}:${s.to}`)).size).toBe(spans.length);
    expect(spans.slice(1).every((s) => s.probability < 0.2 && s.probability <= spans[0]!.probability)).toBe(true);
  });

  it('gives every span its exact probability in (0, 1]: the posterior mass of its labels', () => {
    // Two fields on few, conflicting examples: spans are uncertain.
    const mixed = ['red', 'blue', 'green'].flatMap((w, i) => [
      { features: tokenFeatures(tokenize(`shirt ${w} cotton`), []), labels: [0, 1, 3] },
      { features: tokenFeatures(tokenize(`shirt cotton ${w}`), []), labels: [0, 3, i === 0 ? 0 : 1] },
    ]);
    const crf = trainCrf(['Color', 'Material'], mixed);
    const features = tokenFeatures(tokenize('shirt wool black cotton blend'), []);
    const spans = tag(crf, features);
    expect(spans.length).toBeGreaterThan(1);
    // Brute force: every BIO-valid label path of the 5 tokens with its unnormalised probability.
    const size = 5;
    const ids = features.map((fs) => fs.filter((f) => crf.ids.has(f)).map((f) => crf.ids.get(f)!));
    // A feature's weight for a label: its pair's, 0 when the pair was never seen in training.
    const pairWeight = (id: number, k: number): number => {
      for (let p = crf.offsets[id]!; p < crf.offsets[id + 1]!; p += 1) if (crf.pairLabels[p] === k) return crf.weights[p]!;
      return 0;
    };
    const paths: Array<{ path: number[]; p: number }> = [];
    const walk = (path: number[]): void => {
      if (path.length === features.length) {
        let score = 0;
        path.forEach((k, t) => {
          score += crf.transitions[(t === 0 ? size : path[t - 1]!) * size + k]! + ids[t]!.reduce((a, id) => a + pairWeight(id, k), 0);
        });
        paths.push({ path, p: Math.exp(score) });
        return;
      }
      for (let k = 0; k < size; k += 1) {
        const prev = path.length === 0 ? 0 : path[path.length - 1]!;
        if (k === 0 || k % 2 === 1 || prev === k || prev === k - 1) walk([...path, k]);
      }
    };
    walk([]);
    const z = paths.reduce((a, x) => a + x.p, 0);
    for (const s of spans) {
      const b = 2 * crf.fields.indexOf(s.field) + 1;
      const inSpan = paths.filter(({ path }) => path[s.from] === b && path.slice(s.from + 1, s.to).every((k) => k === b + 1) && path[s.to] !== b + 1);
      expect(s.probability).toBeGreaterThan(0);
      expect(s.probability).toBeLessThanOrEqual(1);
      expect(s.probability).toBeCloseTo(inSpan.reduce((a, x) => a + x.p, 0) / z, 9);
    }
  });

  it('gives marginals that sum to 1 per token and respect the allowed labels', () => {
    const crf = trainCrf(['Flavor', 'Brand'], sequences);
    const m = marginals(crf, unseen, [0, 1, 2]);
    expect(m).toHaveLength(5);
    for (const row of m) {
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      expect(row[3]).toBe(0);
      expect(row[4]).toBe(0);
    }
    // An I label never starts a sequence.
    expect(m[0]![2]).toBe(0);
  });

  it('is deterministic: the same input gives the same weights', () => {
    const a = trainCrf(['Flavor'], sequences);
    const b = trainCrf(['Flavor'], sequences);
    expect(a.weights).toEqual(b.weights);
    expect(a.transitions).toEqual(b.transitions);
    expect([...a.weights].some((w) => w !== 0)).toBe(true);
  });
});

describe('labels from catalog values', () => {
  it('labels every verbatim occurrence and accepts a plural ending', () => {
    const text = 'Basketball Jerseys Set, Jersey Black';
    const tokens = tokenize(text);
    const { labels, found } = labelTokens(text, tokens, { Item: 'Jersey', Color: ['Schwarz', 'Black'] }, ['Item', 'Color']);
    expect([...found].sort()).toEqual(['Color', 'Item']);
    expect(tokens.filter((_, i) => labels[i] === 1).map((t) => t.text)).toEqual(['Jerseys', 'Jersey']);
    expect(tokens.filter((_, i) => labels[i] === 3).map((t) => t.text)).toEqual(['Black']);
  });

  it('does not label a value that cuts a word', () => {
    const text = 'Mensa puzzle';
    expect(labelTokens(text, tokenize(text), { Gender: 'Men' }, ['Gender']).found.size).toBe(0);
  });

  it('reduces plural endings in stem keys', () => {
    expect(stemKey('Basketball Jerseys')).toBe(stemKey('basketball jersey'));
    expect(stemKey('Gas')).toBe('gas');
  });
});

describe('text model', () => {
  const fields = [field('Brand'), field('Flavor'), field('Net content')];

  it('extracts an open-ended value never seen in the catalog from its learned position', () => {
    const model = trainTextModel(fields, catalog());
    const out = extractWithModel('Folgers Ground Coffee, Pumpkin Spice, 12 Ounce', model);
    const values = Object.fromEntries(out.map((e) => [e.field, e.value]));
    expect(values).toEqual({ Brand: 'Folgers', Flavor: 'Pumpkin Spice', 'Net content': '12 Ounce' });
    expect(out.find((e) => e.field === 'Flavor')?.method).toBe('tagger');
    // Rules alone only know catalog values.
    expect(extractFromText('Folgers Ground Coffee, Pumpkin Spice, 12 Ounce', fields, { Flavor: FLAVORS }).find((e) => e.field === 'Flavor')).toBeUndefined();
  });

  it('is deterministic and accepts examples through extractFromText', () => {
    const text = 'Illy Ground Coffee, Salted Caramel, 10 oz';
    const a = extractWithModel(text, trainTextModel(fields, catalog()));
    const b = extractFromText(text, fields, {}, catalog());
    expect(a).toEqual(b);
  });

  it('leaves fields whose catalog values are not written in the texts to the rule layer', () => {
    const examples = catalog().map((e) => ({ ...e, values: { ...e.values, Roast: 'Level 3' } }));
    const model = trainTextModel([...fields, field('Roast')], examples);
    expect(model.groups.get('')!.policies.get('Roast')?.source).toBe('rules');
    expect(model.groups.get('')!.policies.get('Flavor')?.source).not.toBe('rules');
  });

  it('writes an inflected span the way the catalog writes the value', () => {
    const examples: TextExample[] = ['Red', 'Blue', 'Green', 'White', 'Black', 'Grey'].flatMap((c, i) => [
      { text: `Team ${c} Jersey Basketball`, values: { Item: 'Jersey' } },
      { text: `Retro ${c} Jerseys No ${i}`, values: { Item: 'Jersey' } },
    ]);
    const out = extractWithModel('Vintage Pink Jerseys Hockey', trainTextModel([field('Item')], examples));
    expect(out).toEqual([expect.objectContaining({ field: 'Item', value: 'Jersey', snippet: 'Jerseys' })]);
  });

  it('learns one catalog of several groups, each with its own fields', () => {
    const VARIETIES = ['Earl Grey', 'Green Sencha', 'Rooibos', 'Chamomile', 'Darjeeling', 'Oolong', 'Assam', 'Jasmine'];
    const tea: TextExample[] = VARIETIES.flatMap((variety, i) =>
      [0, 1].map((k) => ({
        text: `${BRANDS[(i + k) % BRANDS.length]} Tea Bags, ${variety}, ${20 + 10 * k} Count`,
        values: { Brand: BRANDS[(i + k) % BRANDS.length]!, 'Tea variety': variety },
        group: 'Tea',
      })),
    );
    const coffee = catalog().map((e) => ({ ...e, group: 'Coffee' }));
    const groups = new Map([
      ['Coffee', { fields }],
      ['Tea', { fields: [field('Brand'), field('Tea variety')] }],
    ]);
    const model = trainGroupedTextModel(groups, [...coffee, ...tea]);
    const coffeeText = `Folgers Ground Coffee, ${word(90)} ${word(91)}, 12 Ounce`;
    const coffeeOut = Object.fromEntries(extractWithModel(coffeeText, model, 'Coffee').map((e) => [e.field, e.value]));
    expect(coffeeOut).toEqual({ Brand: 'Folgers', Flavor: `${word(90)} ${word(91)}`, 'Net content': '12 Ounce' });
    // A tea item written like a coffee one only ever gets the tea group's fields.
    const teaOut = extractWithModel('Dunkin Tea Bags, Pumpkin Spice, 12 Ounce', model, 'Tea');
    expect(teaOut.map((e) => e.field).sort()).toEqual(expect.arrayContaining(['Brand']));
    expect(teaOut.every((e) => e.field === 'Brand' || e.field === 'Tea variety')).toBe(true);
    expect(teaOut.find((e) => e.field === 'Brand')?.value).toBe('Dunkin');
    expect(() => extractWithModel('Dunkin Tea Bags', model, 'Cocoa')).toThrow(/unknown item group/);
  });
});
