import { tokenize } from './tokenize';

/** A ranked document id with its BM25 score. */
export interface Bm25Hit {
  id: string;
  score: number;
}

/**
 * Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and
 * Beyond") over a static set of documents, with the usual k1 = 1.2, b = 0.75 and the
 * non-negative idf `ln(1 + (N - df + 0.5) / (df + 0.5))`. Field weighting is done by the caller
 * (repeating a field's text). Ranking is deterministic: score descending, ties by id ascending.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly lengths: number[] = [];
  private readonly ids: string[] = [];
  private totalLength = 0;

  constructor(
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {}

  /** Adds a document; `text` is tokenized with {@link tokenize}. */
  add(id: string, text: string): void {
    const doc = this.ids.length;
    const tokens = tokenize(text);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, count] of tf) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = []));
      list.push([doc, count]);
    }
    this.ids.push(id);
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
  }

  /** Number of documents. */
  get size(): number {
    return this.ids.length;
  }

  /** The documents matching at least one query term, best first (see class doc for ties). */
  search(query: string, filter?: (id: string) => boolean): Bm25Hit[] {
    const n = this.ids.length;
    if (n === 0) return [];
    const avg = this.totalLength / n;
    const scores = new Map<number, number>();
    for (const term of new Set(tokenize(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) {
        const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[doc]) / avg);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (this.k1 + 1)) / norm);
      }
    }
    const hits: Bm25Hit[] = [];
    for (const [doc, score] of scores) if (!filter || filter(this.ids[doc])) hits.push({ id: this.ids[doc], score });
    return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
