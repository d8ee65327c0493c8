/**
 * Leave-one-site-family-out (LOFO) fitting for the pages suite (docs/evaluation.md "Leave-one-site-family-out: the figures to lead with").
 *
 * What the engine learns or tunes from labelled pages, and how each is fitted here without
 * the scored family:
 * - the switchable hand-written rules (src/enrichment/extract/rules.ts): each was written
 *   while reading the dev pages. A rule is kept for a scored family only when, on the pages of
 *   the other families, switching it off loses more right values than wrong ones it removes
 *   (single-rule ablation with every other rule on, plus half the extra loss of switching off
 *   two rules of the same field together, {@link addPairCredit}; a rule no other family's page
 *   needs is off);
 * - the confidence calibration (src/enrichment/extract/calibration.ts): its cell counts come
 *   from the other families' pages only, each counted from a prediction with rules fitted
 *   without that page's family nor the scored one (./calibrate.ts).
 * The vote's fixed weights and the parsers' vocabularies are not switchable; they stay as
 * written, which is why LOFO is an upper bound of what an unseen site family gets.
 */
import { RULE_IDS, type RuleId } from '../../src/enrichment/extract/rules';

/** Second-level labels under a country code (`co.uk`, `com.ar`, `or.jp`), treated as part of the public suffix. */
const SECOND_LEVEL = /^(co|com|net|org|gov|gob|edu|ac|ne|or|go|ltd|plc|biz|info|nom|mil|web|gen)$/;

/**
 * The site family of a URL: the registrable domain's own label, without subdomains and public
 * suffix (`www.amazon.co.uk` → `amazon`, `ar-sa.namshi.com` → `namshi`, `dom.1k.by` → `1k`), the
 * definition of the dev/holdout split (zyte-product-extraction/SOURCE.md). A heuristic public
 * suffix (a ccTLD with a generic second level) rather than the full Public Suffix List; an IP
 * address or a single-label host is its own family.
 */
export function siteFamily(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return url;
  }
  if (/^[\d.]+$/.test(host) || host.includes(':')) return host;
  const labels = host.split('.');
  if (labels.length < 2) return host;
  const n = labels.length;
  if (n >= 3 && labels[n - 1].length === 2 && SECOND_LEVEL.test(labels[n - 2])) return labels[n - 3];
  return labels[n - 2];
}

/** One page's outcome per field under one tuning: `right` (a right value or right default), `wrong` (a wrong value returned). */
export type PageOutcome = Record<string, { right: boolean; wrong: boolean }>;

/** Right values minus wrong ones over a page's fields: what a rule is judged by. */
export function utility(o: PageOutcome): number {
  return Object.values(o).reduce((s, f) => s + (f.right ? 1 : 0) - (f.wrong ? 1 : 0), 0);
}

/**
 * Per rule and page, what the rule adds: utility with every rule on minus utility with the
 * rule off. `plain[page]` and `ablated[rule][page]` are outcomes.
 */
export function ruleGains(plain: Map<string, PageOutcome>, ablated: Map<RuleId, Map<string, PageOutcome>>): Map<RuleId, Map<string, number>> {
  const out = new Map<RuleId, Map<string, number>>();
  for (const [rule, pages] of ablated) {
    const gains = new Map<string, number>();
    for (const [page, o] of pages) {
      const g = utility(plain.get(page) ?? {}) - utility(o);
      if (g !== 0) gains.set(page, g);
    }
    out.set(rule, gains);
  }
  return out;
}

/**
 * Groups of rules that can stand in for one another (they read the same field): pairs within
 * a group are ablated together so that two redundant rules, each useless alone, still get
 * credit. The price-element score signals are left out of pairing (45 pairs, no redundancy
 * seen on the dev pages).
 */
export const RULE_GROUPS: RuleId[][] = [
  ['price.hidden-structured', 'price.shown-offer', 'price.labelled-text', 'price.bare-number'],
  ['availability.shown-overrules', 'availability.variants', 'availability.buy-button'],
  ['sku.shown-label-wins', 'sku.product-id', 'sku.url-token', 'sku.url-code-shown', 'mpn.not-site-id', 'mpn.not-copied-sku', 'id.not-asset-id'],
];

/** Every pair of rules of the same group, once. */
export function rulePairs(): Array<[RuleId, RuleId]> {
  return RULE_GROUPS.flatMap((g) => g.flatMap((a, i) => g.slice(i + 1).map((b) => [a, b] as [RuleId, RuleId])));
}

/**
 * Adds the redundancy credit of ablated pairs to single-rule gains (in place): on each page,
 * what switching both off loses beyond the two single losses is split evenly between the two
 * (a page that needs either of two rules credits each with half).
 */
export function addPairCredit(
  gains: Map<RuleId, Map<string, number>>,
  plain: Map<string, PageOutcome>,
  pairs: Map<string, { rules: [RuleId, RuleId]; outcomes: Map<string, PageOutcome> }>,
): void {
  for (const { rules, outcomes } of pairs.values()) {
    const [a, b] = rules;
    for (const [page, o] of outcomes) {
      const joint = utility(plain.get(page) ?? {}) - utility(o);
      const extra = joint - (gains.get(a)?.get(page) ?? 0) - (gains.get(b)?.get(page) ?? 0);
      if (extra === 0) continue;
      for (const r of rules) {
        const g = gains.get(r) ?? new Map<string, number>();
        g.set(page, (g.get(page) ?? 0) + extra / 2);
        gains.set(r, g);
      }
    }
  }
}

/**
 * The rules to leave out when scoring `held` (one family, or a set of families held out
 * together, as the nested calibration fit does): those whose summed gain over the pages of
 * every other family is not positive. `familyOf[page]` names each page's family.
 */
export function rulesOffFor(held: string | ReadonlySet<string>, gains: Map<RuleId, Map<string, number>>, familyOf: Map<string, string>): Set<RuleId> {
  const out = typeof held === 'string' ? new Set([held]) : held;
  const off = new Set<RuleId>();
  for (const rule of RULE_IDS) {
    let sum = 0;
    for (const [page, g] of gains.get(rule) ?? new Map<string, number>()) if (!out.has(familyOf.get(page) ?? page)) sum += g;
    if (sum <= 0) off.add(rule);
  }
  return off;
}

/** Per rule, the families whose pages it helps (+) or hurts (−), summed gain per family: the pages that motivate it. */
export function ruleProvenance(gains: Map<RuleId, Map<string, number>>, familyOf: Map<string, string>): Array<[RuleId, Array<[string, number]>]> {
  return RULE_IDS.map((rule) => {
    const byFamily = new Map<string, number>();
    for (const [page, g] of gains.get(rule) ?? new Map<string, number>()) {
      const f = familyOf.get(page) ?? page;
      byFamily.set(f, (byFamily.get(f) ?? 0) + g);
    }
    return [rule, [...byFamily].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))];
  });
}
