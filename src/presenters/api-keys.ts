import type { ApiKey } from '../models/api-key';
import { iso } from '../lib/time';

/** An API key as listed: id, name, prefix, the person it acts for (null: the organization) and times; never the key or its hash (docs/api-reference.md "Authentication"). */
export function presentApiKey(k: ApiKey): Record<string, unknown> {
  return {
    id: k.id,
    organization_id: k.organization_id,
    name: k.name,
    key_prefix: k.key_prefix,
    person_id: k.person_id ?? null,
    created_at: iso(k.created_at),
    revoked_at: iso(k.revoked_at),
  };
}
