import type { ResearchArchive } from '../models/research-archive';

/** Wire JSON of a research archive (src/schemas/research-archives.ts researchArchiveResponse). */
export function presentResearchArchive(a: ResearchArchive): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    format: a.format,
    status: a.status,
    configured: a.organization_id === null,
    size_bytes: Number(a.size_bytes),
    content_sha256: a.content_sha256,
    progress: { records_read: a.records_read, pages_indexed: a.pages_indexed, skipped: a.skipped ?? {} },
    error: a.error,
    created_at: new Date(a.created_at).toISOString(),
    completed_at: a.completed_at ? new Date(a.completed_at).toISOString() : null,
  };
}
