import { convert, findMeasurements, findPackPhrases, parseNumber } from '../../../src/enrichment/text/quantities';
import { findLabelledSides, findSizeTuples } from '../../../src/enrichment/text/sizes';
import { extractFromText } from '../../../src/enrichment/text';

describe('numbers', () => {
  it.each([
    ['1,000', 1000],
    ['3.5', 3.5],
    ['4 3/4', 4.75],
    ['8-1/2', 8.5],
    ['1/2', 0.5],
    ['3,5', 3.5],
  ])('parses %s', (written, value) => expect(parseNumber(written)).toBeCloseTo(value));
  it('rejects non-numbers', () => expect(parseNumber('abc')).toBeNaN());
});

describe('measurements', () => {
  it('finds value, unit and dimension', () => {
    const found = findMeasurements('Fishing Lure 40mm 3.5g, 12 fl oz bottle, 146GB 10K drive, 2.33 GHz, 100 Count');
    expect(found.map((m) => [m.text, m.dimension, m.unit])).toEqual([
      ['40mm', 'length', 'mm'],
      ['3.5g', 'mass', 'g'],
      ['12 fl oz', 'volume', 'floz'],
      ['146GB', 'data', 'GB'],
      ['2.33 GHz', 'frequency', 'GHz'],
      ['100 Count', 'count', ''],
    ]);
  });

  it('converts with js-quantities and refuses incompatible units', () => {
    expect(convert({ value: 12, unit: 'floz' }, 'ml')).toBeCloseTo(354.88, 1);
    expect(convert({ value: 2, unit: 'lb' }, 'kg')).toBeCloseTo(0.907, 3);
    expect(convert({ value: 2, unit: 'lb' }, 'ml')).toBeNull();
  });

  it('converts to the field unit for number fields', () => {
    const out = extractFromText('Bin, 24 in wide', [{ name: 'Width', type: 'number', description: 'width', unit: 'cm' }]);
    expect(out[0]?.value).toBeCloseTo(60.96, 2);
  });

  it('finds pack phrases', () => {
    expect(findPackPhrases('Tags, 1,000/Box and a Pack of 6').map((s) => s.text)).toEqual(['1,000/Box', 'Pack of 6']);
  });
});

describe('sizes', () => {
  it("reads two-sided sizes as width x height, keeping each side's unit", () => {
    const [tuple] = findSizeTuples('Composition Notebook 8-1/2" x 11" 80 SH', true);
    expect(tuple?.map((s) => [s.text, s.axis])).toEqual([
      ['8-1/2"', 'width'],
      ['11"', 'height'],
    ]);
  });

  it('uses axis letters when every side has one', () => {
    const [tuple] = findSizeTuples('Utility Cart, 31-1/2"L x 16-1/4"W x 36"H, 100 lb.', true);
    expect(tuple?.map((s) => [s.text, s.axis])).toEqual([
      ['31-1/2"', 'length'],
      ['16-1/4"', 'width'],
      ['36"', 'height'],
    ]);
  });

  it('reads single labelled sides', () => {
    expect(findLabelledSides('Work Table - 24"D, 18" wide top').map((s) => [s.text, s.axis])).toEqual([
      ['24"', 'depth'],
      ['18"', 'width'],
    ]);
  });
});
