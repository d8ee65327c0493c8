// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * A small slice of `npm run eval -- infer`: the three real shop exports and the Zyte
 * ground truth as CSV and XLSX, scored against their gold schemas, must meet the suite's
 * targets (types ≥ 0.95, enum F1 ≥ 0.90, identifiers right on every file). The full suite with
 * IKEA and WDC-PAVE: docs/evaluation.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { evaluateCases, GOLD_DIR, summarize } from '../../../bench/eval/infer';
import { inferCases, readGolds } from '../../../bench/eval/infer-files';
import { googleTaxonomyCache } from '../../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../../helpers/data';

it('meets the inference targets on the slice', async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'infer-slice-'));
  try {
    const golds = readGolds(GOLD_DIR).filter((g) =>
      ['magento-gear-bags', 'magento-gear-watches', 'shopify-product-template', 'zyte-ground-truth'].includes(g.name),
    );
    expect(golds).toHaveLength(4);
    const cases = await inferCases(golds, work);
    const { scores } = await evaluateCases(cases, googleTaxonomyCache(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt')));
    const s = summarize(scores);
    expect(s.files).toBe(5);
    expect(s.type_accuracy).toBeGreaterThanOrEqual(0.95);
    expect(s.enum_f1).toBeGreaterThanOrEqual(0.9);
    for (const f of scores) expect({ file: f.name, unique: f.unique_id_ok, product: f.product_id_ok }).toEqual({ file: f.name, unique: true, product: true });
    expect(s.taxonomy_agreement).toBe(1);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
