/**
 * The text `npm start` (src/cli/start.ts) prints once the service answers: its state, research
 * sources, every capability with its state and reason (src/services/capabilities.ts), the URLs
 * and the development key. Pure, so its text is tested (test/unit/cli/start-banner.test.ts).
 */
import { capabilityLines, type CapabilityReport } from '../services/capabilities';

/** What the banner shows. */
export interface BannerInput {
  /** Whether the API answered `/healthz`. */
  up: boolean;
  /** `/readyz`'s last answer (its `checks`, `ok` or `error: …` each), null when it never answered. */
  readiness: { ready: boolean; checks: Record<string, string> } | null;
  /** One line per research source (src/services/research-archives/sources.ts describeSources). */
  research: string[];
  capabilities: CapabilityReport;
  publicUrl: string;
  /** The Temporal Web UI, null for an external Temporal. */
  temporalUiUrl: string | null;
  apiKey: string;
  /** Where the key is kept, relative to the clone. */
  keyFile: string;
}

/** Continuation lines line up under the first value (after the 16-column labels). */
const INDENT = '\n' + ' '.repeat(16);

/** The banner's lines joined with newlines, starting and ending with an empty line. */
export function startBanner(b: BannerInput): string {
  const notReady = b.readiness ? Object.entries(b.readiness.checks).filter(([, v]) => v !== 'ok') : [];
  const state = !b.up
    ? 'The API has not answered yet; its log is above.'
    : b.readiness?.ready
      ? 'Catalog enrichment service is running.'
      : `The API answers but is not ready (${notReady.map(([k, v]) => `${k}: ${v}`).join('; ') || 'no answer from /readyz'}); the logs are above.`;
  return [
    '',
    state,
    `  Research:     ${b.research.join(INDENT)}`,
    `  Capabilities: ${capabilityLines(b.capabilities).join(INDENT)}`,
    `  API:          ${b.publicUrl}/api   (health: ${b.publicUrl}/healthz, readiness and capabilities: ${b.publicUrl}/readyz)`,
    `  API docs:     ${b.publicUrl}/docs`,
    `  Temporal UI:  ${b.temporalUiUrl ?? '(external Temporal; see its own UI)'}`,
    `  API key:      ${b.apiKey}   (also in ${b.keyFile})`,
    `  Try:          curl -H "Authorization: Bearer ${b.apiKey}" ${b.publicUrl}/api/public/enrich/jobs`,
    '  Stop with Ctrl-C.',
    '',
  ].join('\n');
}
