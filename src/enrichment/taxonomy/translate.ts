/**
 * Titles in Spanish, Portuguese, German, French or Italian read in English words through the
 * shipped bilingual lexicon (./translations), so that the classifier's English head-noun rules
 * and the taxonomy's English names apply: "Camisa Social Masculina Slim" → "formal men slim
 * shirt". See docs/evaluation-taxonomy.md (titles in other languages).
 *
 * - The language is the lexicon language with the most distinct words (then product nouns) in
 *   the title, a product noun spelled like an English product word ("table", "sofa") not
 *   counting; it needs two such words, or product nouns that outnumber the title's English ones.
 * - Phrases of up to three words are matched first ("sac à dos" → backpack), then words, then
 *   German compounds by their longest known last part ("Wanderschuhe" → hiking shoes).
 * - Prepositions become English "for"/"with" or a clause break ("de", "von"), so the noun phrase
 *   ends where the English reading expects it.
 * - Head-first languages (Romance) put the product first: the first translated noun of the first
 *   clause is moved to the clause's end, where English titles put their head; a bare noun
 *   complement of it ("de cocina", "de banho": a known word right after "de") goes just before it,
 *   as an English noun modifier does ("cuchillo de cocina" → "kitchen knife").
 */
import { decodeEntities } from './terms';
import { FUNCTION_WORDS, HEAD_FIRST, NOUNS, type Language } from './translations';

/** A folded form → its English word, and whether it is a product noun. */
interface Entry {
  english: string;
  noun: boolean;
}

/** Folded forms of one language (single words and phrases), and its longest phrase in words. */
interface Lexicon {
  forms: Map<string, Entry>;
  longest: number;
}

const LANGUAGES: readonly Language[] = ['es', 'pt', 'it', 'fr', 'de'];
/** Shortest German compound part read on its own ("Herren|hemd"). */
const COMPOUND_PART = 3;

/** Lower-cased, diacritics removed; an elided article or preposition written out ("d'Été" → "de ete", "l'eau" → "le eau"). */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\b([dl])['’](?=\p{L})/gu, '$1e ');
}

function words(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}'’-]+/u)
    .map((w) => w.replace(/^['’-]+|['’-]+$/g, ''))
    .filter(Boolean);
}

function compileLexicons(): Map<Language, Lexicon> {
  const out = new Map<Language, Lexicon>();
  for (const lang of LANGUAGES) {
    const forms = new Map<string, Entry>();
    let longest = 1;
    const put = (entries: Record<string, string>, noun: boolean): void => {
      for (const [english, list] of Object.entries(entries)) {
        for (const form of list.split(/\s+/).filter(Boolean)) {
          const key = words(form.replace(/_/g, ' ')).join(' ');
          if (!key || forms.has(key)) continue;
          forms.set(key, { english, noun });
          longest = Math.max(longest, key.split(' ').length);
        }
      }
    };
    put(NOUNS[lang], true);
    put(FUNCTION_WORDS[lang], false);
    out.set(lang, { forms, longest });
  }
  return out;
}

/** The lexicons, compiled once (read-only after). */
const LEXICONS: ReadonlyMap<Language, Lexicon> = compileLexicons();

/** A word read in a language: its German compound split when the whole word is unknown. */
function lookup(lex: Lexicon, lang: Language, word: string): Entry[] | undefined {
  const hit = lex.forms.get(word);
  if (hit) return [hit];
  if (lang !== 'de' || word.length < 2 * COMPOUND_PART) return undefined;
  for (let i = COMPOUND_PART; i <= word.length - COMPOUND_PART; i++) {
    const last = lex.forms.get(word.slice(i));
    if (!last?.noun) continue;
    const head = word.slice(0, i);
    // A linking "s"/"n" between the parts ("Arbeitsschuhe", "Damenjacke").
    const first = lex.forms.get(head) ?? lex.forms.get(head.replace(/(?:s|n|en)$/, ''));
    return [first ?? { english: head, noun: false }, last];
  }
  return undefined;
}

/** The lexicon entries of a clause's words, phrases first (longest match), then words and German compounds. */
function readWords(lex: Lexicon, lang: Language, ws: string[]): Array<{ word: string; entries?: Entry[] }> {
  const out: Array<{ word: string; entries?: Entry[] }> = [];
  for (let i = 0; i < ws.length;) {
    let n = Math.min(lex.longest, ws.length - i);
    while (n > 1 && !lex.forms.has(ws.slice(i, i + n).join(' '))) n--;
    const word = ws.slice(i, i + n).join(' ');
    out.push({ word, entries: n > 1 ? [lex.forms.get(word) as Entry] : lookup(lex, lang, word) });
    i += n;
  }
  return out;
}

/**
 * The language of a title by the lexicon (see the module comment), or undefined (English or unknown).
 * @param isEnglish true for a (folded) word that names a product in English (a taxonomy node's head word, a lexicon kind)
 */
export function titleLanguage(title: string, isEnglish: (word: string) => boolean): Language | undefined {
  const ws = words(decodeEntities(title));
  const englishProducts = new Set(ws.filter(isEnglish)).size;
  let best: { lang: Language; hits: number; nouns: number } | undefined;
  for (const lang of LANGUAGES) {
    const read = readWords(LEXICONS.get(lang) as Lexicon, lang, ws);
    // A product noun spelled like an English one ("table", "sofa") says nothing of the language; a preposition does.
    const hits = read.filter((r) => r.entries && (!isEnglish(r.word) || !r.entries.some((e) => e.noun)));
    const nouns = hits.filter((r) => r.entries?.some((e) => e.noun));
    const mine = { lang, hits: new Set(hits.map((h) => h.word)).size, nouns: nouns.length };
    if (!best || mine.hits > best.hits || (mine.hits === best.hits && mine.nouns > best.nouns)) best = mine;
  }
  if (!best || best.hits === 0) return undefined;
  // Two words of the language, or product nouns that outnumber the English ones.
  return best.hits >= 2 || (best.nouns > 0 && best.nouns > englishProducts) ? best.lang : undefined;
}

/**
 * The title read in English words (see the module comment), or the title unchanged when it is
 * not in a lexicon language.
 * @param isEnglish see {@link titleLanguage}
 */
export function translateTitle(title: string, isEnglish: (word: string) => boolean): string {
  const lang = titleLanguage(title, isEnglish);
  if (!lang) return title;
  const lex = LEXICONS.get(lang) as Lexicon;
  // Clause separators of the original end a clause: "," "|" "(" … and " - ".
  const pieces = fold(decodeEntities(title)).split(/\s[-–—]\s|[,;|()[\]{}/]/u);
  // `of`: the clause opened at a "de"/"di"/"von" (a noun complement); `known`: its words the lexicon translated.
  type Clause = { out: string[]; heads: number[]; known: boolean[]; of: boolean };
  const clauses: Clause[] = [];
  let current: Clause = { out: [], heads: [], known: [], of: false };
  const close = (of = false): void => {
    if (current.out.length > 0) clauses.push(current);
    current = { out: [], heads: [], known: [], of };
  };
  for (const piece of pieces) {
    for (const { word, entries } of readWords(lex, lang, words(piece))) {
      for (const e of entries ?? [{ english: word, noun: false }]) {
        if (e.english === 'of') close(true);
        else if (e.english === 'for' || e.english === 'with') {
          close();
          current.out.push(e.english);
          current.known.push(true);
        } else {
          if (e.noun) current.heads.push(current.out.length);
          current.out.push(e.english);
          current.known.push(entries !== undefined);
        }
      }
    }
    close();
  }
  if (HEAD_FIRST.has(lang)) {
    const at = clauses.findIndex((c) => c.heads.length > 0 && c.out[0] !== 'for' && c.out[0] !== 'with');
    const first = clauses[at];
    // Only a title that opens with its product ("Camisa Social …"), not an English title with a foreign word late in it.
    if (first && first.heads[0] <= 1) {
      const [noun] = first.out.splice(first.heads[0], 1);
      // A bare noun complement modifies the head as an English noun before it does: "cuchillo de cocina" → kitchen knife,
      // "toalha de banho" → bath towel (only a word the lexicon knows, so an unknown name stays in its own clause).
      const next = clauses[at + 1];
      if (next?.of && next.known[0] && first.heads.length === 1 && next.heads[0] !== 0) {
        first.out.push(next.out.shift() as string);
        next.known.shift();
      }
      first.out.push(noun);
    }
  }
  return clauses
    .filter((c) => c.out.length > 0)
    .map((c) => c.out.join(' '))
    .join(', ');
}

/**
 * The English words of the other languages' product nouns in a title read as English ("… Acoustic Guitar guitarra",
 * "Ski Glasses Snow Gafas"): single words the lexicon knows as a product noun and no English product word is spelled
 * like ("jersey", "basket" and "robe" are English too). Empty for a title in a lexicon language (./translate reads it whole).
 * @param isEnglish see {@link titleLanguage}
 */
export function foreignNouns(title: string, isEnglish: (word: string) => boolean): string[] {
  return titleLanguage(title, isEnglish) ? [] : foreignNounsOfEnglish(title, isEnglish);
}

/**
 * {@link foreignNouns} of a title already known to be read as English (`translateTitle` returned it unchanged),
 * without deciding its language again.
 */
export function foreignNounsOfEnglish(title: string, isEnglish: (word: string) => boolean): string[] {
  const out: string[] = [];
  for (const w of words(decodeEntities(title))) {
    if (isEnglish(w)) continue;
    const hit = LANGUAGES.map((lang) => (LEXICONS.get(lang) as Lexicon).forms.get(w)).find((e) => e?.noun);
    if (hit) out.push(hit.english);
  }
  return out;
}
