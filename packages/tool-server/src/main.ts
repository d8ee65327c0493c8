#!/usr/bin/env node
/**
 * Entry point of the tool server, the package's bin `catalog-mcp` (`npm run mcp`
 * in the service's checkout): no argument serves MCP over stdio (what agent hosts launch);
 * `--http PORT` serves the streamable HTTP transport on 127.0.0.1:PORT at `/mcp`; `login` runs the
 * login helper; `--help` prints the usage. This file is the only one of the package that reads
 * `process.env` and `process.argv`.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { loadMcpConfig, McpConfig } from './config';
import { readCredentials } from './credentials';
import { login } from './login';
import { createMcpServer } from './server';

/** The configuration: environment first, then what `login` stored. */
function config(): McpConfig {
  const env = process.env;
  const file = env.CATALOG_MCP_CREDENTIALS_FILE?.trim() || path.join(os.homedir(), '.config', 'catalog-mcp', 'credentials.json');
  const stored = readCredentials(file);
  const withStored = {
    ...env,
    CATALOG_BASE_URL: env.CATALOG_BASE_URL ?? stored?.base_url ?? undefined,
    CATALOG_ORGANIZATION_ID: env.CATALOG_ORGANIZATION_ID ?? stored?.organization_id ?? undefined,
  };
  return loadMcpConfig(withStored, process.cwd(), stored?.token ?? null);
}

/** Serves MCP over stdio until stdin closes. Logs go to stderr only: stdout is the protocol. */
async function serveStdio(cfg: McpConfig): Promise<void> {
  const server = createMcpServer(cfg);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`catalog MCP server on stdio → ${cfg.baseUrl} (workspace ${cfg.workspace})\n`);
}

/**
 * Serves the streamable HTTP transport on loopback, stateless: each POST to `/mcp` gets its own
 * server and transport (the SDK's stateless pattern), so no session state lives in the process.
 */
async function serveHttp(cfg: McpConfig, port: number): Promise<void> {
  const httpServer = http.createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'Not found: the MCP endpoint is /mcp' }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' }).end(JSON.stringify({ detail: 'Stateless server: POST only' }));
      return;
    }
    const server = createMcpServer(cfg);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: (err as Error).message }));
    }
  });
  await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  const addr = httpServer.address();
  process.stderr.write(`catalog MCP server on http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}/mcp → ${cfg.baseUrl}\n`);
}

/** What `catalog-mcp --help` prints. */
const USAGE = [
  'usage: catalog-mcp [--http PORT | login [--no-open] | --help]',
  '  (no argument)   serve MCP over stdio (what agent hosts launch)',
  '  --http PORT     serve the streamable HTTP transport at http://127.0.0.1:PORT/mcp',
  '  login           sign in through the dashboard and store the credential',
  'environment: CATALOG_BASE_URL, CATALOG_API_KEY or CATALOG_ACCESS_TOKEN, CATALOG_ORGANIZATION_ID, CATALOG_MCP_WORKSPACE',
  '',
].join('\n');

/** Parses argv and runs the chosen mode; exits 2 on a bad argument. */
async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const cfg = config();
  if (argv[0] === 'login') {
    await login(cfg, { open: !argv.includes('--no-open') });
    return;
  }
  const i = argv.indexOf('--http');
  if (i >= 0) {
    const port = Number(argv[i + 1]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(USAGE);
      process.exit(2);
    }
    await serveHttp(cfg, port);
    return;
  }
  await serveStdio(cfg);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
