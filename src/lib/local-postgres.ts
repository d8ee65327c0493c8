import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

async function reachable(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Makes sure the PostgreSQL server of `databaseUrl` answers. When it does not, the URL points at
 * this machine and Debian's `pg_ctlcluster` is present, starts the local cluster (this machine
 * kind runs PostgreSQL as a Debian cluster) and waits up to 30 s for it.
 * @throws Error when the server still cannot be reached
 */
export async function ensureLocalPostgres(databaseUrl: string, log: (line: string) => void = console.log): Promise<void> {
  if (await reachable(databaseUrl)) return;
  const host = new URL(databaseUrl).hostname;
  const clusters = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
  if (!LOOPBACK.has(host) || clusters.length === 0) throw new Error(`PostgreSQL at ${host} is not reachable (DATABASE_URL)`);
  log(`PostgreSQL is not answering on ${host}: starting the local cluster ${clusters[0]}/main with pg_ctlcluster...`);
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', clusters[0], 'main', 'start'], { stdio: 'inherit' });
  for (let i = 0; i < 30; i += 1) {
    if (await reachable(databaseUrl)) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error('PostgreSQL did not come up within 30 s');
}
