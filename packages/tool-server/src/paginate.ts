/**
 * Offset pagination of a full pull (docs/tool-server-design.md "Pull"), with guards added:
 * a short page is filled by re-pulling the rows it missed, and the result is verified against the
 * server's `total` (count and unique ids) instead of being returned short (the "offset ignored"
 * trap of docs/tool-server-design.md "Pull", which upstream returns silently).
 */

/** One row of a list endpoint; only `id` is read here. */
export interface PageItem {
  id?: unknown;
}

/** A page as the endpoint answered it: its items and `total` (null when missing or unparseable). */
export interface Page<T> {
  items: T[];
  total: number | null;
}

/** Fetches `limit` rows from `offset` (with its own retries and timeout). */
export type FetchPage<T> = (offset: number, limit: number) => Promise<Page<T>>;

/** What a pull did besides returning rows. */
export interface PaginationStats {
  /** Pages requested (retries inside `fetchPage` not counted). */
  requests: number;
  /** Short pages filled by re-pulling. */
  refills: number;
  /** Whether the sequential fallback ran, and why. */
  sequential: string | null;
}

/** A pull that cannot be completed: fewer rows than `total`, or duplicates. */
export class IncompletePullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IncompletePullError';
  }
}

/** `total` of a response as an integer, or null (docs/tool-server-design.md "Pull"). */
export function parseTotal(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/** The first item's id as a string, or null. */
function firstId<T extends PageItem>(items: T[]): string | null {
  const v = items[0]?.id;
  return v === undefined || v === null ? null : String(v);
}

/**
 * Runs `tasks` with at most `limit` in flight.
 * @returns their results in task order; rejects with the first failure
 */
export async function pool<R>(tasks: Array<() => Promise<R>>, limit: number): Promise<R[]> {
  const out = new Array<R>(tasks.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  });
  await Promise.all(lanes);
  return out;
}

/**
 * Sequential pagination (docs/tool-server-design.md "Pull"): from offset 0 by `size`; stops on an empty
 * page, a page whose first id was already a first id (offset ignored), `expectedTotal` (or the
 * page's `total`) reached, or a page shorter than asked.
 */
export async function pullSequential<T extends PageItem>(
  fetchPage: FetchPage<T>,
  size: number,
  expectedTotal: number | null,
  stats: PaginationStats,
): Promise<T[]> {
  const rows: T[] = [];
  const firstIds = new Set<string>();
  let offset = 0;
  for (;;) {
    stats.requests++;
    const page = await fetchPage(offset, size);
    if (!page.items.length) break;
    const id = firstId(page.items);
    if (id !== null) {
      if (firstIds.has(id)) break;
      firstIds.add(id);
    }
    rows.push(...page.items);
    const total = expectedTotal ?? page.total;
    if (total !== null && rows.length >= total) return rows.slice(0, total);
    if (page.items.length < size) break;
    offset += page.items.length;
  }
  return rows;
}

/**
 * Fills page `items` fetched at `offset` up to `want` rows by re-pulling from where it stopped
 * ("fills a short page by re-pulling"); at most 3 re-pulls, each must make progress.
 */
async function fillShortPage<T extends PageItem>(fetchPage: FetchPage<T>, items: T[], offset: number, want: number, stats: PaginationStats): Promise<T[]> {
  const out = [...items];
  for (let tries = 0; out.length < want && tries < 3; tries++) {
    stats.requests++;
    stats.refills++;
    const more = await fetchPage(offset + out.length, want - out.length);
    if (!more.items.length) break;
    out.push(...more.items.slice(0, want - out.length));
  }
  return out;
}

/**
 * Parallel pagination (docs/tool-server-design.md "Pull") of one endpoint and page size: page 1, then
 * the other offsets with at most `concurrency` in flight; falls back to sequential pagination when
 * `total` is missing, a page fails, or the server ignores `offset`; fills short pages; returns
 * exactly `total` rows.
 * @throws whatever `fetchPage` throws for page 1 or inside the sequential fallback
 */
export async function pullParallel<T extends PageItem>(fetchPage: FetchPage<T>, pageSize: number, concurrency: number, stats: PaginationStats): Promise<T[]> {
  stats.requests++;
  const first = await fetchPage(0, pageSize);
  if (!first.items.length) return [];
  const total = first.total;
  if (total === null) {
    stats.sequential = 'no total';
    return pullSequential(fetchPage, pageSize, null, stats);
  }
  if (total <= first.items.length) return first.items.slice(0, total);
  const eff = first.items.length;
  const offsets: number[] = [];
  for (let o = eff; o < total; o += eff) offsets.push(o);
  let pages: T[][];
  try {
    pages = await pool(
      offsets.map((o) => async () => {
        stats.requests++;
        const page = await fetchPage(o, pageSize);
        const want = Math.min(eff, total - o);
        return page.items.length && page.items.length < want ? fillShortPage(fetchPage, page.items, o, want, stats) : page.items.slice(0, want);
      }),
      concurrency,
    );
  } catch {
    stats.sequential = 'a page failed';
    return pullSequential(fetchPage, Math.max(50, Math.min(pageSize, eff, 200)), total, stats);
  }
  const id1 = firstId(first.items);
  const later = pages.filter((p) => p.length);
  if (later.length && id1 !== null && later.every((p) => firstId(p) === id1)) {
    stats.sequential = 'offset ignored';
    return pullSequential(fetchPage, pageSize, total, stats);
  }
  const rows = first.items.concat(...pages);
  if (rows.length < total) {
    stats.sequential = 'short result';
    return pullSequential(fetchPage, pageSize, total, stats);
  }
  return rows.slice(0, total);
}

/**
 * Verifies a full pull against the `total` the server reported: exactly `total` rows with
 * distinct ids (docs/api-reference.md "Errors": a snapshot with fewer rows than expected is checked
 * against `total`).
 * @throws IncompletePullError naming the counts
 */
export function verifyPull<T extends PageItem>(rows: T[], total: number | null): void {
  const ids = new Set(rows.map((r) => String(r.id)));
  if (total !== null && rows.length !== total) throw new IncompletePullError(`pulled ${rows.length} rows but the server reports total ${total}`);
  if (ids.size !== rows.length) throw new IncompletePullError(`pulled ${rows.length} rows but only ${ids.size} distinct ids (the server's pages overlap)`);
}
