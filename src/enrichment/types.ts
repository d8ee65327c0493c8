/**
 * The contract of the enrichment engine (research + extraction), pure of Temporal and of the
 * database. The API validates requests into these shapes; Temporal activities call
 * {@link EnrichmentEngine}; `npm run eval` calls the very same engine.
 * Field names follow docs/api-enrichment.md "Enrichment jobs" (output-schema fields, result items) and
 * docs/api-enrichment.md "Review info" (`review_info`, low-confidence candidates, sources).
 */
/**
 * One catalog item as a training example of the text model (src/enrichment/text): its text and
 * its values (alternatives allowed; null = none), and optionally its group (e.g. its category)
 * when the catalog's groups have different fields. Declared here, with the other shapes, so the
 * text model depends on this contract and not the other way round.
 */
export interface TextExample {
  text: string;
  values: Record<string, string | string[] | null | undefined>;
  group?: string;
}

/**
 * One text of a catalog item as a training example of the text model: `field` is the item
 * field it was read from (e.g. `title`), `text` what the engine would read there (`inputText`
 * of engine.ts), `values` the item's values of the output fields that this text states.
 */
export interface CatalogTextExample extends TextExample {
  field: string;
}

/** Declared type of an output field (docs/api-enrichment.md "Enrichment jobs"). */
export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

/** One field to extract (docs/api-enrichment.md "Enrichment jobs"). */
export interface OutputField {
  name: string;
  type: FieldType;
  /** What to extract; also used for field matching. */
  description: string;
  /** Unit numbers are converted to (e.g. `cm`, `kg`, `W`, `l`, `in`). */
  unit?: string;
  /** Allowed values; extracted values are mapped onto one of them or dropped. */
  enum?: Array<string | number | boolean>;
  /** Example values guiding extraction (at most a few dozen). */
  sample_values?: Array<string | number | boolean>;
  /** For arrays: element type. `image_url` values are absolute URLs. */
  array_element_type?: 'string' | 'number' | 'image_url';
  /** Allowed values of array elements. */
  items_enum?: Array<string | number | boolean>;
  required?: boolean;
  /** Merge enriched values with the item's existing value instead of overwriting. */
  merge?: boolean;
  pattern?: string;
  pattern_message?: string;
  min_length?: number;
  max_length?: number;
  minimum?: number;
  maximum?: number;
  unique?: boolean;
  semantic_type?: string;
}

/** Research effort tiers (docs/enrich-options.md "Speed: model and reasoning effort"); `slow` is the same as `deep`. */
export type Speed = 'cheap' | 'fast' | 'medium' | 'deep' | 'slow' | 'ultra_slow';

/** Taxonomy definition as sent in a request or stored on a catalog (docs/api-reference.md "Taxonomy"). */
export interface TaxonomyInput {
  name: string;
  description?: string;
  hierarchy_levels?: string[];
  nodes: Record<
    string,
    {
      name: string;
      parent: string | null;
      description?: string;
      attributes?: Array<{ name: string; type?: string; values?: string[]; description?: string; required?: boolean }>;
    }
  >;
}

/** Low-confidence request block (docs/api-enrichment.md "Low-confidence candidates"). */
export interface LowConfidenceOptions {
  enabled: boolean;
  scopes?: Array<'field' | 'taxonomy_attribute' | 'category'>;
  placement?: 'tail';
  max_candidates_per_item?: number;
}

/** Per-job options the engine honours; everything else in a request is the service's business. */
/** One categorised item of a catalog: its text (title, name) and its category (a node id of the taxonomy). */
export interface CategoryExample {
  text: string;
  category_id: string;
}

export interface EnrichOptions {
  /** Free-text research prompt. */
  prompt?: string;
  speed: Speed;
  /** Restrict sources to these domains (a domain also admits its subdomains). */
  allowed_domains?: string[];
  /** Never search or fetch these domains (and their subdomains). */
  blocked_domains?: string[];
  /** false: values come only from the input item (docs/api-enrichment.md "Sources and citations"). */
  web_search: boolean;
  /**
   * Research reads only the pages the item names itself (src/enrichment/research/item-page.ts) and
   * sends no search: set for the rows that name a page in a job of an organization with no
   * research source (docs/research.md, "An item's own page").
   */
  item_pages_only?: boolean;
  /** The job's organization: whose uploaded web archives research reads; configured archives only when absent. */
  organization_id?: string;
  taxonomy?: TaxonomyInput;
  predict_taxonomy?: boolean;
  predict_taxonomy_attributes?: boolean;
  /**
   * The target catalog's categorised items as examples for `predict_taxonomy`:
   * their nearest-neighbour votes join the term scoring (src/enrichment/taxonomy/examples.ts).
   * The service fills it from the catalog (src/services/enrichment/rows/category-examples.ts); the
   * eval's `taxonomy` suite plays the catalog with labelled titles.
   */
  category_examples?: CategoryExample[];
  validate_semantics?: boolean;
  low_confidence?: LowConfidenceOptions;
  /**
   * Values already present in the target catalog, per field name (a general vocabulary
   * mechanism: the service fills it from the catalog; eval fills it from `--examples`).
   */
  known_values?: Record<string, string[]>;
  /**
   * Items of the target catalog as training examples for `web_search: false` (see
   * {@link CatalogTextExample}). When some example states a value of an output field, a tagger
   * trained on them (src/enrichment/learned-text.ts) reads the item's texts of the fields the
   * examples came from, instead of the rule layer alone. The service samples them at job
   * creation (src/services/enrichment/rows/examples.ts); the eval's `--examples` plays the same
   * part. The same array (by identity) reuses its trained model.
   */
  text_examples?: CatalogTextExample[];
  /**
   * Further unlabelled texts of the catalog for the learned model (with `text_examples`): the
   * texts of the job's own items, stored at job creation (src/services/enrichment/rows/examples.ts),
   * over which it counts title phrases as over the examples' texts (src/enrichment/text/corpus.ts).
   */
  text_corpus?: string[];
  /**
   * Preferred sources for this item (request `source_hint_sets`): domains and URLs to try first.
   * Hints, not restrictions: `allowed_domains` / `blocked_domains` still apply.
   */
  source_hints?: { domains?: string[]; urls?: string[] };
  /** Reviewer feedback for re-extraction (`global_feedback` + this row's `item_feedback`), free text. */
  feedback?: string;
  /** The target catalog's quality prompt (docs/api-reference.md "Catalog context and quality prompt"): read by the LLM step only. */
  quality_prompt?: string;
  /**
   * Called with every page research fetched, exactly as fetched (bytes included), so the service
   * can keep durable copies (`capture_source_artifacts`). In-process only; never serialised.
   */
  on_fetched?: (page: import('./research/types').FetchedPage) => void;
  /**
   * A 429/503 with `Retry-After` stops research with RetryLaterError, which the row activity
   * turns into a Temporal retry (set while the activity has attempts left).
   */
  defer_fetch_retry?: boolean;
  /**
   * Called with `started` when extraction starts training the text model on `text_examples`
   * (no model of that examples version was cached or under way) and `finished` when the training
   * has ended, so the service can show the training step in the job's progress. In-process only.
   */
  on_training?: (state: 'started' | 'finished') => void;
  /**
   * The request's knowledge-base files as documents (docs/api-enrichment.md "Extra request fields" `knowledge_base_*`),
   * built by `knowledgeBaseDocuments`; values read from them cite `SOURCE_X`.
   */
  knowledge_base?: KnowledgeBaseDocument[];
}

/**
 * One knowledge-base file as text (src/enrichment/knowledge-base): `source_id` is `SOURCE_1`,
 * `SOURCE_2`… in upload order, `hosted_url` where the service stores it (the
 * `knowledge_base_sources` map). `text` is the readable text (PDF text layer, HTML visible
 * text, the file itself for text/CSV); `html` keeps an HTML file's markup (JSON-LD, tables);
 * `rows` are a CSV's records keyed by header.
 */
export interface KnowledgeBaseDocument {
  source_id: string;
  name: string;
  hosted_url: string;
  text: string;
  html?: string;
  rows?: Array<Record<string, string>>;
}

/** `review_info` of a result (docs/api-enrichment.md "Review info"). */
export interface ReviewInfo {
  reasoning: string;
  confidence: 'high' | 'medium' | 'low';
  flags: string[];
  field_issues: Array<{ field: string; message: string }>;
  field_confidence: Record<string, 'high' | 'medium' | 'low'>;
  field_methods: Record<string, 'jsonld' | 'microdata' | 'opengraph' | 'table' | 'text' | 'knowledge_base' | 'input' | 'llm' | 'rendered'>;
}

/** A weak candidate kept outside the canonical output (docs/api-enrichment.md "Enrichment jobs"; docs/api-enrichment.md "Low-confidence candidates"). */
export interface LowConfidenceCandidate {
  name: string;
  scope: 'field' | 'taxonomy_attribute' | 'category';
  candidate_value: string;
  confidence: 'LOW' | 'MEDIUM';
  reason: string;
  sources: string[];
  source_explanation: string;
}

/**
 * One enrichment result (docs/api-enrichment.md "Enrichment jobs"). `after_data` holds the
 * input fields plus extracted fields, `sources` (field → URLs, or `INPUT:<field>` /
 * `SOURCE_X`) and `source_explanations` (field → one sentence). A field without a source is
 * absent, never invented.
 */
export interface EnrichmentResult {
  original_data: Record<string, unknown>;
  after_data: Record<string, unknown> & { sources: Record<string, string[]>; source_explanations: Record<string, string> };
  all_sources: string[];
  error?: string;
  category_id?: string;
  taxonomy_attributes?: Record<string, unknown>;
  taxonomy_attribute_sources?: Record<string, string[]>;
  taxonomy_attribute_explanations?: Record<string, string>;
  review_info: ReviewInfo;
  low_confidence_candidates?: LowConfidenceCandidate[];
  low_confidence_fields?: string[];
  staged_change_id?: string;
}

/** Counters of work done for one item, summed into `service_usage` (all integers). */
export interface EngineUsage {
  search_calls: number;
  pages_fetched: number;
  llm_calls: number;
  llm_prompt_tokens: number;
  llm_completion_tokens: number;
}

/**
 * The stored research of one item: JSON-serialisable, compact (parsed evidence, not whole
 * pages), and sufficient for {@link EnrichmentEngine.extract} to reproduce the same output
 * without any search or fetch (re-extraction).
 */
export interface Evidence {
  /** Queries sent to the search provider, in order. */
  queries: string[];
  /** Ranked search results considered (URL + score), for diagnostics and eval `hit_at_5`. */
  search_results: Array<{ url: string; score: number }>;
  /** Engine-defined parsed documents; opaque to callers. */
  documents: unknown[];
  /** Search or fetch failures met during research (one line each); absent when there were none. */
  problems?: string[];
  /**
   * How each fetch of research ended, per URL: `outcome` ok / not_found / blocked /
   * robots_denied / timeout / too_large / server_error / unsupported_type; set by the service
   * (src/services/enrichment/rows/fetch-records.ts), absent when nothing was fetched.
   */
  fetches?: Array<import('./research/types').FetchRecord>;
  /**
   * The item's own pages (src/enrichment/research/item-page.ts) that could not be read live, in
   * order; absent when every one was read or none was fetched live. Extraction turns them into
   * field issues and flags (docs/research.md, "An item's own page").
   */
  item_pages?: ItemPageFailure[];
}

/**
 * An item's own page the live fetcher did not read: `url`, the item key that named it (`url`,
 * `product_url`, …; `source_hints` for a source hint URL), how the fetch ended (a FetchOutcome, or
 * `refused` when no request was made: address policy, not an http(s) URL, redirect loop), the HTTP
 * status (0 when no answer arrived) and, for `refused`, the reason.
 */
export interface ItemPageFailure {
  url: string;
  field: string;
  outcome: import('./research/types').FetchOutcome | 'refused';
  status: number;
  reason?: string;
  /** With `robots_denied`: robots.txt could not be read, which RFC 9309 §2.3.1.4 treats as disallowing everything. */
  robots_unreachable?: boolean;
}

/** Input of one item's enrichment. */
export interface EnrichInput {
  item: Record<string, unknown>;
  output_schema: OutputField[];
  options: EnrichOptions;
}

/** The engine. Implementations never throw for item-level problems: they return `error`. */
export interface EnrichmentEngine {
  /** Research (search + fetch + parse) for one item. */
  research(input: EnrichInput): Promise<{ evidence: Evidence; usage: EngineUsage }>;
  /** Extraction from stored evidence only: deterministic for the same evidence and input. */
  extract(input: EnrichInput, evidence: Evidence): Promise<{ result: EnrichmentResult; usage: EngineUsage }>;
  /** research + extract. */
  enrich(input: EnrichInput): Promise<{ result: EnrichmentResult; evidence: Evidence; usage: EngineUsage }>;
  /** The Fetcher research uses, when the engine has one (the service hosts media through it). */
  readonly fetcher?: import('./research/types').Fetcher;
}
