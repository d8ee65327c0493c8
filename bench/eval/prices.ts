import path from 'node:path';
import { parsePrice } from '../../src/enrichment/normalize/price';
import { canonicalDecimal } from './metrics';
import { findFiles, options, readJson, table } from './files';

interface PriceExample {
  price_raw: string | null;
  currency_raw: string | null;
  currency: string | null;
  amount: string | number | null;
  decimal_separator?: string;
}

function isExample(v: unknown): v is PriceExample {
  return !!v && typeof v === 'object' && 'price_raw' in v && 'amount' in v;
}

/** Lists of price examples in a JSON value: a list itself, or an object of named lists. */
function exampleLists(value: unknown, name: string): Array<[string, PriceExample[]]> {
  if (Array.isArray(value)) return value.length > 0 && value.every(isExample) ? [[name, value]] : [];
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => exampleLists(v, `${name}:${k}`));
  return [];
}

/**
 * The prices suite (evaluation.md): every `*.json` under `--data` holding lists of
 * price-parser examples; amount accuracy = decimal equality (null = null), currency accuracy =
 * the currency notation found equals the expected one (upstream price-parser scoring).
 * Prints a table per list and returns `{suite: "prices", examples, amount_accuracy, currency_accuracy}`.
 * @throws Error when --data is missing or holds no examples
 */
export async function runPricesSuite(argv: string[]): Promise<Record<string, unknown>> {
  const data = options(argv, '--data')[0];
  if (!data) throw new Error('prices suite: --data <folder> is required');
  const lists = findFiles(data, '.json').flatMap((f) => exampleLists(readJson(f), path.relative(data, f)));
  if (lists.length === 0) throw new Error(`prices suite: no price examples under ${data}`);
  let n = 0,
    amounts = 0,
    currencies = 0;
  const rows: Array<Array<string | number>> = [];
  for (const [name, list] of lists) {
    let a = 0,
      c = 0;
    for (const e of list) {
      const p = parsePrice(e.price_raw, { currency_hint: e.currency_raw, decimal_separator: e.decimal_separator });
      if (canonicalDecimal(p?.amount ?? null) === canonicalDecimal(e.amount)) a++;
      if ((p?.currency_text ?? null) === e.currency) c++;
    }
    n += list.length;
    amounts += a;
    currencies += c;
    rows.push([name, list.length, (a / list.length).toFixed(3), (c / list.length).toFixed(3)]);
  }
  console.log(table(['list', 'examples', 'amount acc', 'currency acc'], rows));
  return { suite: 'prices', examples: n, amount_accuracy: Number((amounts / n).toFixed(4)), currency_accuracy: Number((currencies / n).toFixed(4)) };
}
