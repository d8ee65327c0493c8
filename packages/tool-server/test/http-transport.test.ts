/**
 * `catalog-mcp --http PORT` (`npm run mcp -- --http PORT` in the service's checkout): the streamable HTTP transport on loopback, stateless,
 * reached with the SDK's own StreamableHTTPClientTransport; other paths and methods answer JSON errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The package folder; tsx is the workspace root's. */
const PKG = path.resolve(__dirname, '..');
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  child = spawn(path.join(PKG, '../../node_modules/.bin/tsx'), ['src/main.ts', '--http', '0'], {
    cwd: PKG,
    env: { ...process.env, CATALOG_BASE_URL: 'http://127.0.0.1:9/api', CATALOG_MCP_CREDENTIALS_FILE: '/nonexistent/credentials.json' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
});
afterAll(() => {
  child?.kill('SIGTERM');
});

test('listens on loopback and serves tools/list and tools/call to the SDK client', async () => {
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const client = new Client({ name: 'jest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('execution_catalog_snapshot_pull');
  // The service is unreachable here: the tool reports the failure as a tool error, the server stays up.
  const r = await client.callTool({ name: 'catalog_list', arguments: {} });
  expect(r.isError).toBe(true);
  expect(JSON.stringify(r.content)).toContain('no answer');
  await client.close();
});

test('other paths are 404 and GET on /mcp is 405, as JSON', async () => {
  const other = await fetch(url.replace('/mcp', '/other'));
  expect(other.status).toBe(404);
  expect(await other.json()).toEqual({ detail: expect.stringContaining('/mcp') });
  expect((await fetch(url)).status).toBe(405);
});
