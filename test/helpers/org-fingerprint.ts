/**
 * A digest of everything one organization owns, over every table of the database:
 * the tables are found from the schema itself, not listed by hand, so a table added later is
 * covered (or named) without anybody remembering this file. A table belongs to an organization
 * through `organization_id`, or through a chain of foreign keys that ends at such a table
 * (catalog → items, job → rows, run → nodes, import → lines, …).
 */
import type { Knex } from 'knex';

/** Links the schema does not declare as foreign keys: child table → [column, parent table, parent column]. */
const UNDECLARED_LINKS: Record<string, [string, string, string]> = {
  catalog_snapshot_items: ['snapshot_id', 'catalog_snapshots', 'id'],
  // Completeness deltas, appended by the items' triggers (no foreign key, so writers never wait on the catalog row).
  catalog_fill_counts: ['catalog_id', 'catalogs', 'id'],
  // Records of deleted items, appended by the items' delete trigger (no foreign key, like the fill counts).
  catalog_item_changes: ['catalog_id', 'catalogs', 'id'],
  // List sort keys, written by the items' triggers (no foreign key, so their inserts check none).
  catalog_sort_keys: ['catalog_id', 'catalogs', 'id'],
  // A feed's item state: a generation is named by the id of the full run that wrote it (no foreign key, so a full run's inserts check none).
  feed_item_state: ['state_id', 'feed_runs', 'id'],
};

/**
 * Tables that hold no organization's data: bookkeeping of migrations, limits, indexes and tests,
 * and the live fetcher's state shared by every organization (per host: politeness, robots.txt,
 * the cache of public pages and which hosts need rendering).
 */
const NOT_ORGANIZATION_DATA = new Set([
  'knex_migrations',
  'knex_migrations_lock',
  'rate_limits',
  'search_index_baselines',
  'test_write_audit',
  'fetch_hosts',
  'fetch_host_slots',
  'fetch_robots',
  'fetch_cache',
  'page_renders',
]);

interface Link {
  column: string;
  parent: string;
  parentColumn: string;
}

/** Every table's way to its organization: breadth first from `organizations` over foreign keys. */
async function organizationLinks(knex: Knex): Promise<{ links: Map<string, Link | null>; tables: string[] }> {
  const { rows: fks } = await knex.raw<{ rows: Array<{ child: string; col: string; parent: string; pcol: string }> }>(
    `SELECT c.conrelid::regclass::text AS child, a.attname AS col, c.confrelid::regclass::text AS parent, af.attname AS pcol
     FROM pg_constraint c
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
     JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = c.confkey[1]
     WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1 AND c.connamespace = 'public'::regnamespace
     ORDER BY (a.attname = 'organization_id') DESC, 1, 2`,
  );
  for (const [child, [col, parent, pcol]] of Object.entries(UNDECLARED_LINKS)) fks.push({ child, col, parent, pcol });
  const { rows: tables } = await knex.raw<{ rows: Array<{ name: string }> }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const links = new Map<string, Link | null>([['organizations', null]]);
  for (let queue = ['organizations']; queue.length;) {
    const next: string[] = [];
    for (const parent of queue) {
      for (const fk of fks.filter((f) => f.parent === parent && !links.has(f.child))) {
        links.set(fk.child, { column: fk.col, parent, parentColumn: fk.pcol });
        next.push(fk.child);
      }
    }
    queue = next;
  }
  return { links, tables: tables.map((t) => t.name) };
}

/** The SQL condition selecting `table`'s rows of the organization (its id inlined, checked as a UUID). */
function ownedBy(table: string, links: Map<string, Link | null>, organizationId: string): string {
  const link = links.get(table);
  if (!link) return `id = '${organizationId}'`;
  return `"${link.column}" IN (SELECT "${link.parentColumn}" FROM "${link.parent}" WHERE ${ownedBy(link.parent, links, organizationId)})`;
}

/**
 * The digest of the organization's rows in every table, and the tables it covers.
 * @throws Error naming any table that is neither linked to an organization nor declared free of organization data
 */
export async function organizationFingerprint(knex: Knex, organizationId: string): Promise<{ digest: Record<string, string>; tables: string[] }> {
  if (!/^[0-9a-f-]{36}$/i.test(organizationId)) throw new Error(`not an organization id: ${organizationId}`);
  const { links, tables } = await organizationLinks(knex);
  const unknown = tables.filter((t) => !links.has(t) && !NOT_ORGANIZATION_DATA.has(t));
  if (unknown.length)
    throw new Error(
      `tables with no link to an organization: ${unknown.join(', ')} (link them by a foreign key, or list them in test/helpers/org-fingerprint.ts)`,
    );
  const digest: Record<string, string> = {};
  for (const table of tables.filter((t) => links.has(t))) {
    const { rows } = await knex.raw<{ rows: Array<{ digest: string; n: number }> }>(
      `SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest, count(*)::int AS n FROM "${table}" t WHERE ${ownedBy(table, links, organizationId)}`,
    );
    digest[table] = `${rows[0].n}:${rows[0].digest}`;
  }
  return { digest, tables: Object.keys(digest) };
}
