import { readFileSync } from 'node:fs';
import path from 'node:path';
import { codeShape, findCodeTokens, findGtins, isValidGtin } from '../../../src/enrichment/text/identifiers';
import { parseRecord } from '../../../bench/eval/text';

const DATA = path.resolve(__dirname, '../../../..', 'shared/data');

describe('GTIN check digit', () => {
  it('accepts valid and rejects altered codes', () => {
    expect(isValidGtin('095205742466')).toBe(true);
    expect(isValidGtin('095205742467')).toBe(false);
    expect(isValidGtin('4006381333931')).toBe(true); // EAN-13 example from GS1
    expect(isValidGtin('12345')).toBe(false);
  });

  it('finds every valid UPC annotated in the real wdc-pave offers', () => {
    const records = readFileSync(path.join(DATA, 'wdc-pave/wdc_with_all_attributes/train_large.jsonl'), 'utf8').split('\n').filter(Boolean).map(parseRecord);
    const annotated = records.flatMap((r) =>
      (r.gold['Retail UPC'] ?? []).filter((u) => isValidGtin(u) && r.text.includes(u)).map((u) => ({ u, text: r.text })),
    );
    expect(annotated.length).toBeGreaterThan(20);
    for (const { u, text } of annotated) expect(findGtins(text).map((s) => s.text)).toContain(u);
  });
});

describe('codes', () => {
  it('computes collapsed shapes', () => {
    expect(codeShape('XER106R01409')).toBe('A9A9');
    expect(codeShape('413931-B21')).toBe('9-A9');
    expect(codeShape('YA24a')).toBe('A9a');
  });

  it('finds code-like tokens with a digit', () => {
    expect(findCodeTokens('Avery AVE12505 - HP 413931-B21 Smart Array').map((s) => s.text)).toEqual(['AVE12505', '413931-B21']);
  });
});
