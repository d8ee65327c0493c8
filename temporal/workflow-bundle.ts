/**
 * The workflow code a worker loads. In development and tests the worker bundles `workflows/`
 * itself when it starts (webpack, a few seconds). The production build prebuilds the bundle once,
 * as the Temporal TypeScript SDK recommends for production ("Prebuilt Workflow bundles"):
 * `npm run build` compiles to `dist/`, then runs this file's main on the compiled workflows
 * (`node dist/temporal/workflow-bundle.js`), which writes `dist/workflow-bundle.js`; a worker
 * started from `dist/` loads that file instead of bundling.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';

/** The prebuilt bundle: `workflow-bundle.js` at the root of the build (`dist/workflow-bundle.js`). */
export const WORKFLOW_BUNDLE_FILE = path.join(__dirname, '..', 'workflow-bundle.js');

/** True when this module runs from the compiled build (`dist/`), not from the TypeScript sources. */
function compiled(): boolean {
  return path.extname(__filename) === '.js';
}

/**
 * The worker option naming its workflow code: the prebuilt bundle when running from the build
 * and the bundle exists, else `workflows/` to be bundled at start (sources; or a build whose
 * bundle step was skipped, which still works, only slower to start).
 */
export function workflowCode(): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (compiled() && fs.existsSync(WORKFLOW_BUNDLE_FILE)) return { workflowBundle: { codePath: WORKFLOW_BUNDLE_FILE } };
  return { workflowsPath: require.resolve('../workflows') };
}

/**
 * Bundles the compiled `workflows/` (the same code the build's worker would bundle at start) and
 * writes it to {@link WORKFLOW_BUNDLE_FILE}.
 * @returns the bundle's size in bytes
 * @throws Error when run from the sources (the bundle belongs next to the build it was made
 *   from), or the SDK's error when a workflow imports something the sandbox forbids
 */
export async function writeWorkflowBundle(): Promise<number> {
  if (!compiled()) throw new Error('the workflow bundle is built from the compiled code: npm run build');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') });
  fs.writeFileSync(WORKFLOW_BUNDLE_FILE, code);
  return Buffer.byteLength(code);
}

if (require.main === module) {
  writeWorkflowBundle().then(
    (bytes) => console.log(`workflow bundle written to ${path.relative(process.cwd(), WORKFLOW_BUNDLE_FILE)} (${Math.round(bytes / 1024)} KiB)`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
