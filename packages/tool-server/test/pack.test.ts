/**
 * The tool server as a user installs it: `npm pack` of this package and of the typed
 * client it depends on, both tarballs installed into an empty folder (from npm's cache where it can,
 * the registry otherwise), then `npx catalog-mcp` run with plain node: `--help`, and the stdio
 * server listing its tools to the SDK's client and calling the service (a stand-in on loopback)
 * through the packed client.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The workspace packages' folders. */
const PACKAGES = path.resolve(__dirname, '../..');
let dir: string;
let app: string;

/** Runs npm with `args` in `cwd`; returns its stdout. */
function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-mcp-pack-'));
  // `npm pack` runs each package's prepack (its tsc build), so the tarballs hold a fresh dist/.
  const tarballs = ['client', 'tool-server'].map((p) =>
    path.join(dir, npm(['pack', '--pack-destination', dir], path.join(PACKAGES, p)).trim().split('\n').pop()!),
  );
  app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'a-user-project', private: true }));
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], app);
}, 300_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the built program and its package.json only, and installs without the service', () => {
  const listing = execFileSync('tar', ['tzf', path.join(dir, 'catalog-enrichment-tool-server-0.1.0.tgz')], { encoding: 'utf8' })
    .trim()
    .split('\n');
  expect(listing).toContain('package/dist/main.js');
  expect(listing.every((f) => f === 'package/package.json' || f.startsWith('package/dist/'))).toBe(true);
  const installed = fs.readdirSync(path.join(app, 'node_modules'));
  expect(installed).toEqual(expect.arrayContaining(['@catalog-enrichment', '@modelcontextprotocol', 'hyparquet', 'openapi-fetch']));
  // None of the service's own dependencies came along.
  for (const serviceOnly of ['knex', 'pg', 'koa', 'sharp', '@temporalio', 'playwright-core']) expect(installed).not.toContain(serviceOnly);
});

test('npx catalog-mcp --help prints the usage with plain node', () => {
  const out = execFileSync('npx', ['--no-install', 'catalog-mcp', '--help'], { cwd: app, encoding: 'utf8' });
  expect(out).toMatch(/^usage: catalog-mcp \[--http PORT \| login/);
});

test('the installed bin serves MCP on stdio: tools listed, a tool calls the service through the packed client', async () => {
  const seen: Array<{ url: string; auth?: string; org?: string }> = [];
  const service = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization, org: req.headers['x-organization-id'] as string | undefined });
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ catalogs: [{ id: 'c1', name: 'Shoes' }], total: 1 }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const client = new Client({ name: 'jest', version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: path.join(app, 'node_modules/.bin/catalog-mcp'),
        cwd: app,
        env: {
          PATH: process.env.PATH ?? '',
          CATALOG_BASE_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}/api`,
          CATALOG_API_KEY: 'ck_pack_test',
          CATALOG_ORGANIZATION_ID: 'org-1',
          CATALOG_MCP_CREDENTIALS_FILE: path.join(dir, 'none.json'),
        },
        stderr: 'ignore',
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['catalog_list', 'execution_catalog_snapshot_pull', 'execution_local_diff_compute']));
    const r = await client.callTool({ name: 'catalog_list', arguments: { limit: 5 } });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse((r.content as Array<{ text: string }>)[0].text)).toEqual({ catalogs: [{ id: 'c1', name: 'Shoes' }], total: 1 });
    expect(seen).toEqual([{ url: '/api/public/catalogs?limit=5&offset=0', auth: 'Bearer ck_pack_test', org: 'org-1' }]);
  } finally {
    await client.close();
    await new Promise<void>((resolve) => service.close(() => resolve()));
  }
});
