/**
 * The boundary between the service and the workspace packages (eslint.config.mjs,
 * docs/architecture.md "Packages"): ESLint refuses the service importing a package, by path or by name,
 * and a package importing the service's files, and accepts a package importing the typed client by name.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** ESLint's messages for `code` linted as the file `file` (relative to the repository). */
function lint(file: string, code: string): string[] {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', file, '--format', 'json'], {
    cwd: ROOT,
    input: code,
    encoding: 'utf8',
  });
  const [result] = JSON.parse(r.stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test('the service imports no package, a package none of the service; a package imports the client by name', () => {
  const service = lint(
    'src/services/probe.ts',
    "import { ApiClient } from '../../packages/tool-server/src/api-client';\nimport { createCatalogClient } from '@catalog-enrichment/client';\nexport const probe = [ApiClient, createCatalogClient];\n",
  );
  expect(service).toEqual([
    expect.stringMatching(/^boundaries\/relative-imports: service may not import package:tool-server's files/),
    expect.stringMatching(/^no-restricted-imports: .*The service does not import the workspace packages/),
  ]);
  const toolServer = lint(
    'packages/tool-server/src/tools/probe.ts',
    "import { loadConfig } from '../../../../src/config';\nimport { createCatalogClient } from '@catalog-enrichment/client';\nexport const probe = [loadConfig, createCatalogClient];\n",
  );
  expect(toolServer).toEqual([expect.stringMatching(/^boundaries\/relative-imports: package:tool-server may not import service's files/)]);
});
