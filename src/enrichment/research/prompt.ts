import type { OutputField } from '../types';
import { tokenize } from './tokenize';

/**
 * What the request's `prompt` ("search prompt guiding web research", docs/api-enrichment.md "Enrichment jobs") gives
 * research, with or without a model: the domains it names (preferred sources, like a source hint)
 * and its product words (added to the name query). Instruction words, the words of the output
 * fields' names and descriptions, and words already in the item's name are not product words.
 */
export interface PromptSteer {
  /** Host names the prompt names (`bosch-professional.com`, `www.example.co.uk`), lower case. */
  domains: string[];
  /** Up to {@link MAX_WORDS} product words, in the prompt's order. */
  words: string[];
}

const MAX_WORDS = 3;

/** Function words and the vocabulary of research instructions (English); never product words. */
const NOT_PRODUCT_WORDS = new Set(
  (
    'a an the and or but nor for with without from into onto over under about above below of to in on at by as is are was were be been ' +
    'this that these those it its their our your my all any each every some only also just more most less than then there here ' +
    'use using used find finding search searching look looking get fill extract enrich research prefer preferred preferring ' +
    'prefers please should must can could would may might not never always when where which what who how why do does did ' +
    'official site sites website websites web page pages source sources shop shops store stores online retailer retailers ' +
    'manufacturer manufacturers vendor vendors brand brands product products item items catalog catalogue data value values ' +
    'field fields attribute attributes info information detail details spec specs specification specifications description ' +
    'descriptions title titles name names language english exact exactly correct accurate reliable trusted first instead ' +
    'rather avoid ignore skip include including like such other same new current latest check verify make sure them they ' +
    'see want need give return keep set put show read write written add fix maker makers'
  ).split(' '),
);

/** File-name and code endings that look like host names but are not (`node.js`, `specs.pdf`). */
const NOT_TLDS = new Set(['js', 'ts', 'py', 'json', 'html', 'htm', 'txt', 'csv', 'pdf', 'md', 'xml', 'xls', 'xlsx', 'doc', 'docx', 'jpg', 'png', 'gif']);

const HOST = /(?:https?:\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![a-z0-9-])/gi;

/** The host names a text names: lower case, `www.` dropped, each once; file names are not hosts (see {@link NOT_TLDS}). */
export function promptDomains(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(HOST)) {
    const host = m[1].toLowerCase().replace(/^www\./, '');
    if (!NOT_TLDS.has(host.slice(host.lastIndexOf('.') + 1))) out.push(host);
  }
  return [...new Set(out)];
}

/**
 * The research steer of a prompt for one item (see {@link PromptSteer}).
 * @param itemName the item's name (its words are not added again); undefined when it has none
 * @param fields the output fields (their names and descriptions say what to find, not what the product is)
 */
export function promptSteer(prompt: string | undefined, itemName: string | undefined, fields: OutputField[]): PromptSteer {
  if (!prompt?.trim()) return { domains: [], words: [] };
  const domains = promptDomains(prompt);
  const known = new Set([...tokenize(itemName ?? ''), ...fields.flatMap((f) => [...tokenize(f.name), ...tokenize(f.description ?? '')])]);
  const withoutHosts = domains
    .reduce((text, d) => text.replace(new RegExp(`(?:https?://)?(?:www\\.)?${d.replace(/\./g, '\\.')}\\S*`, 'gi'), ' '), prompt)
    .replace(new RegExp(`[\\w-]+\\.(?:${[...NOT_TLDS].join('|')})\\b`, 'gi'), ' ');
  const words: string[] = [];
  for (const word of withoutHosts.toLowerCase().split(/[^\p{L}\p{N}-]+/u)) {
    const w = word.replace(/^-+|-+$/g, '');
    if (w.length < 3 || /^\d+$/.test(w) || NOT_PRODUCT_WORDS.has(w) || known.has(w) || words.includes(w)) continue;
    words.push(w);
    if (words.length === MAX_WORDS) break;
  }
  return { domains, words };
}

/**
 * The queries with the prompt's product words: the first query holding the item's name, with
 * the words appended, joins the list after the identifier queries; at the tier's query budget it
 * takes the place of the last (least specific) query. Unchanged without words or a name query.
 */
export function withPromptWords(queries: string[], itemName: string | undefined, words: string[], budget: number): string[] {
  if (!words.length || !itemName) return queries;
  const at = queries.findIndex((q) => q.includes(itemName));
  if (at < 0) return queries;
  const refined = `${queries[at]} ${words.join(' ')}`;
  const out = [...queries.slice(0, at + 1), refined, ...queries.slice(at + 1)];
  if (out.length > budget) out.splice(out.length - 1 === at + 1 ? at : out.length - 1, 1);
  return out.slice(0, Math.max(1, budget));
}

/** Source hints with the prompt's domains added (preferred, never a restriction: see research/hints.ts). */
export function withPromptDomains(
  hints: { domains?: string[]; urls?: string[] } | undefined,
  domains: string[],
): { domains?: string[]; urls?: string[] } | undefined {
  if (!domains.length) return hints;
  return { ...hints, domains: [...new Set([...(hints?.domains ?? []), ...domains])] };
}
