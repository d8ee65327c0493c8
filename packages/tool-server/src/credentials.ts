/**
 * The token store of the login helper ("receives a user token on a localhost
 * callback, stored for later runs"): one JSON file, readable by its owner only.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What the file holds. */
export interface StoredCredentials {
  token: string;
  base_url: string;
  organization_id: string | null;
  saved_at: string;
}

/** The stored credentials, or null when the file is missing or unreadable. */
export function readCredentials(file: string): StoredCredentials | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StoredCredentials>;
    return typeof v.token === 'string' && v.token
      ? { token: v.token, base_url: String(v.base_url ?? ''), organization_id: v.organization_id ?? null, saved_at: String(v.saved_at ?? '') }
      : null;
  } catch {
    return null;
  }
}

/** Writes the credentials with mode 0600 (its directory 0700). */
export function writeCredentials(file: string, creds: StoredCredentials): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
