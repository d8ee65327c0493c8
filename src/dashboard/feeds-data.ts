import type { Knex } from 'knex';
import { CHANNELS, ISSUE_CODES } from '../channels';
import { NotFoundError } from '../lib/errors';
import type { Catalog } from '../models/catalog';
import type { Feed } from '../models/feed';
import type { FeedRun } from '../models/feed-run';
import type { Scope } from '../services/access/scope';
import { getCatalog } from '../services/catalog/catalogs';
import { proposeFeedMapping, schemaFieldsOf } from '../services/feeds/channel-port';
import { loadFeed } from '../services/feeds/feeds';
import { listFeedRunIssues, listFeedRuns, loadFeedRun, type FeedRunIssue, type IssueQuery } from '../services/feeds/runs';
import { feedsWithRuns, type PanelFeed } from './channel-readiness-data';

/**
 * What the console's feed pages show (docs/console.md "Feeds"), read through the feed services
 * the API routes use: a catalog's feeds with their latest runs, the channels the forms offer,
 * one feed with its runs and the reasons of a proposed mapping, one run with a page of its issues.
 */

/** Runs the feed page lists, newest first. */
export const RUNS_LISTED = 50;
/** Issues per page of the run page. */
export const ISSUES_PAGE_SIZE = 50;

/** A channel as the forms offer it: id, name, formats and attribute names (docs/channels.md). */
export interface ChannelChoice {
  id: string;
  name: string;
  formats: string[];
  attributes: string[];
}

/** The channels the feed forms offer. */
export function channelChoices(): ChannelChoice[] {
  return CHANNELS.map((c) => ({ id: c.id, name: c.name, formats: [...c.formats], attributes: c.attributes.map((a) => a.name) }));
}

/** The issue codes the run page filters by (docs/channels.md "Issue codes"). */
export const FILTER_CODES: readonly string[] = ISSUE_CODES;

/** The feeds list page's data. */
export interface FeedListData {
  catalog: Catalog;
  feeds: PanelFeed[];
}

/** Loads a catalog's feeds with their latest runs. @throws NotFoundError (404) / ForbiddenError (403) for the catalog */
export async function loadFeedList(knex: Knex, scope: Scope, catalogId: string): Promise<FeedListData> {
  const { catalog } = await getCatalog(knex, scope, catalogId);
  return { catalog, feeds: await feedsWithRuns(knex, scope, catalogId) };
}

/** A feed of a catalog with the catalog's fields (the edit form's field suggestions). */
export interface CatalogFeed {
  catalog: Catalog;
  feed: Feed;
  fields: string[];
  /** The feed's channel's attribute names, in the channel's order (how the mapping is listed). */
  attributeOrder: string[];
  /** For a proposed mapping: attribute → why the service proposed its source (empty once the mapping is the client's). */
  reasons: Record<string, string>;
}

/**
 * Loads a feed of a catalog, with the reasons of its mapping while it is the proposal: the
 * proposal for the catalog's current schema, for the attributes whose source it still gives.
 * @throws NotFoundError (404) for an unknown feed or one of another catalog; ForbiddenError (403) for another organization's catalog
 */
export async function loadCatalogFeed(knex: Knex, scope: Scope, catalogId: string, feedId: string): Promise<CatalogFeed> {
  const { catalog, schema } = await getCatalog(knex, scope, catalogId);
  const feed = await loadFeed(knex, scope, feedId);
  if (feed.catalog_id !== catalog.id) throw new NotFoundError('No such feed in this catalog');
  const schemaFields = schemaFieldsOf(schema);
  let reasons: Record<string, string> = {};
  if (feed.mapping_suggested) {
    const proposal = proposeFeedMapping(feed.channel, schemaFields, schema, feed.currency ?? undefined);
    reasons = Object.fromEntries(Object.entries(proposal.reasons).filter(([a]) => JSON.stringify(proposal.mapping[a]) === JSON.stringify(feed.mapping[a])));
  }
  const attributeOrder = CHANNELS.find((c) => c.id === feed.channel)?.attributes.map((a) => a.name) ?? [];
  return { catalog, feed, fields: schemaFields.map((f) => f.name), attributeOrder, reasons };
}

/** The feed page's data: the feed and its latest runs. */
export interface FeedPageData extends CatalogFeed {
  runs: FeedRun[];
}

/** Loads the feed page. @throws as {@link loadCatalogFeed} */
export async function loadFeedPage(knex: Knex, scope: Scope, catalogId: string, feedId: string): Promise<FeedPageData> {
  const cf = await loadCatalogFeed(knex, scope, catalogId, feedId);
  return { ...cf, runs: await listFeedRuns(knex, scope, feedId, RUNS_LISTED) };
}

/** The run page's data: the run and one page of its issues under the query's filters. */
export interface RunPageData {
  catalog: Catalog;
  feed: Feed;
  run: FeedRun;
  query: IssueQuery;
  issues: FeedRunIssue[];
  total: number;
}

/**
 * Loads the run page; `query` is the validated issue query (the API's `issuesQuery`).
 * @throws NotFoundError (404) for an unknown run, feed or catalog mismatch
 */
export async function loadRunPage(knex: Knex, scope: Scope, catalogId: string, feedId: string, runId: string, query: IssueQuery): Promise<RunPageData> {
  const { catalog, feed } = await loadCatalogFeed(knex, scope, catalogId, feedId);
  const run = await loadFeedRun(knex, scope, feedId, runId);
  const { items, total } = await listFeedRunIssues(knex, scope, feedId, runId, query);
  return { catalog, feed, run, query, issues: items, total };
}
