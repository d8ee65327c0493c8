import type { Speed } from '../types';
import type { LlmCall, LlmConfig } from './client';

/**
 * The model and reasoning effort of each speed tier (docs/enrich-options.md "Speed: model and reasoning effort": `cheap` lowest
 * cost, `fast`, `medium`, `deep` = `slow`, `ultra_slow` maximum reasoning). Models come from
 * `LlmConfig.models` (env `OPENAI_MODEL_CHEAP|FAST|DEEP`), each falling back to the next one
 * towards the default model (`cheap` → `fast` → `model`; `deep` → `model`); the effort is sent only
 * when `LlmConfig.reasoning` says the models take one (OpenAI `reasoning_effort`: low, medium, high).
 */
const TIERS: Record<Speed, { model: (c: LlmConfig) => string | undefined; effort: NonNullable<LlmCall['reasoning_effort']> }> = {
  cheap: { model: (c) => c.models?.cheap ?? c.models?.fast, effort: 'low' },
  fast: { model: (c) => c.models?.fast, effort: 'low' },
  medium: { model: () => undefined, effort: 'medium' },
  deep: { model: (c) => c.models?.deep, effort: 'high' },
  slow: { model: (c) => c.models?.deep, effort: 'high' },
  ultra_slow: { model: (c) => c.models?.deep, effort: 'high' },
};

/**
 * The call settings of a speed tier under `config` (see {@link TIERS}); an unknown tier is
 * treated as `deep`, the request default.
 */
export function callForSpeed(config: LlmConfig, speed: Speed): LlmCall {
  const tier = TIERS[speed] ?? TIERS.deep;
  return { model: tier.model(config) ?? config.model, ...(config.reasoning ? { reasoning_effort: tier.effort } : {}) };
}

/**
 * The speed tier a judge request's `model` names (docs/api-enrichment.md "Judging": `fast|medium|high`; `high` is
 * the deepest tier; the enrich tiers are accepted too); null for any other name (the caller then
 * uses the default tier and says so).
 */
export function judgeSpeed(model: string | undefined): Speed | null {
  if (model === undefined) return 'medium';
  if (model === 'high') return 'deep';
  return model in TIERS ? (model as Speed) : null;
}
