import type { Knex } from 'knex';
import { promptSteer } from '../../../enrichment/research/prompt';
import type { OutputField } from '../../../enrichment/types';
import { Catalog } from '../../../models/catalog';
import type { EnrichJobConfig, EnrichRequest } from '../../../schemas/enrich';

/**
 * The enrich options that need a model (docs/api-enrichment.md "Enrichment jobs" `prompt`, `speed`,
 * `validate_semantics`; docs/api-enrichment.md "Extra request fields" `global_feedback`, `item_feedback`; the catalog's quality
 * prompt). With a model configured (env `OPENAI_BASE_URL`) they reach the engine's LLM calls
 * (src/enrichment/llm); without one, each that was given and could not act, or acted only in
 * part, is named in the job's `notices` (never silent).
 */

const NO_MODEL = 'no model is configured (OPENAI_BASE_URL)';

/** Where the options of a job can act: a model, research (web_search and not a re-extraction). */
interface Reach {
  model: boolean;
  research: boolean;
}

/** The notice of a `prompt` that could act only through research, or not at all (`fields`: the job's output fields). */
function promptNotice(prompt: string, fields: OutputField[], reach: Reach): string {
  if (!reach.research) return `prompt: not applied: ${NO_MODEL} and this job does no web research for it to steer`;
  const { words, domains } = promptSteer(prompt, undefined, fields);
  const acted = [
    ...(words.length ? [`its product words (${words.join(', ')}) were added to the name query`] : []),
    ...(domains.length ? [`the domains it names (${domains.join(', ')}) were preferred as sources`] : []),
  ];
  return acted.length
    ? `prompt: only steered research: ${acted.join('; ')}; ${NO_MODEL}, so extraction did not follow its instructions`
    : `prompt: not applied: ${NO_MODEL}, and it names no product words or domains research could use`;
}

/**
 * The notices of options given to a job that need a model and had no effect, or only part of
 * one, without it (empty with a model).
 * @param req the request as sent (to tell a given `speed` from the default)
 * @param config the job's resolved config
 * @param qualityPrompt the target catalog's quality prompt, if any
 */
export function modelOptionNotices(req: EnrichRequest, config: EnrichJobConfig, qualityPrompt: string | null, model: boolean): string[] {
  if (model) return [];
  const reach: Reach = { model, research: config.web_search !== false && !config.reextract_from_activity_id };
  const out: string[] = [];
  if (config.prompt?.trim()) out.push(promptNotice(config.prompt, (config.output_schema ?? []) as OutputField[], reach));
  if (config.global_feedback?.trim()) out.push(`global_feedback: not applied: ${NO_MODEL}; it is echoed in review_info.feedback`);
  if (Object.keys(config.item_feedback ?? {}).length) out.push(`item_feedback: not applied: ${NO_MODEL}; each row's is echoed in its review_info.feedback`);
  if (qualityPrompt?.trim()) out.push(`catalog quality prompt: not applied: ${NO_MODEL}`);
  if (config.validate_semantics)
    out.push(
      `validate_semantics: only the rule checks ran (type, enum, bounds, pattern, GS1 check digit, price > 0); checking that values fit their field descriptions needs a model, and ${NO_MODEL}`,
    );
  if (req.speed !== undefined && reach.research)
    out.push(`speed: chose the research budget only; choosing the model and reasoning effort needs a model, and ${NO_MODEL}`);
  else if (req.speed !== undefined) out.push(`speed: not applied: this job does no web research and ${NO_MODEL}`);
  return out;
}

/**
 * Settles the model options of a planned job, in place: with a model, the target catalog's quality
 * prompt is stored as `config.quality_prompt` for the extractor (read again on every job, so a
 * re-extraction uses the prompt as it is now); the notices of {@link modelOptionNotices} are
 * appended to `config.recorded_noops` (each once).
 * @param model whether the service has a model configured
 */
export async function settleModelOptions(knex: Knex, req: EnrichRequest, config: EnrichJobConfig, model: boolean): Promise<void> {
  const catalogId = config.catalog_target?.catalog_id ?? config.catalog_id;
  const catalog = catalogId ? await Catalog.query(knex).findById(catalogId).select('quality_prompt') : undefined;
  const qualityPrompt = catalog?.quality_prompt ?? null;
  delete config.quality_prompt;
  if (model && qualityPrompt?.trim()) config.quality_prompt = qualityPrompt;
  const notices = modelOptionNotices(req, config, qualityPrompt, model);
  // A resumed job carries the earlier job's notices: each is listed once.
  if (notices.length) config.recorded_noops = [...new Set([...(config.recorded_noops ?? []), ...notices])];
}
