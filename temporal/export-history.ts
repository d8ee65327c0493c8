/**
 * Exports a workflow execution's event history as JSON for replay tests: the fixtures in
 * test/replay/ are made this way and read back with {@link historyFromFixture} (docs/workflows.md
 * "Rules of the craft", Temporal rule 9).
 *
 * Format: the protobuf object form of `temporal.api.history.v1.History` (enums as names, 64-bit
 * integers as strings, bytes as base64). Not the proto3-JSON of `temporal workflow show`: the
 * SDK 1.24 helpers for that (historyToJSON / historyFromJSON) fail in this install with "type
 * must be a Type" (its protojson comes from protobufjs 8, the generated protos from protobufjs 7).
 *
 *   npx tsx temporal/export-history.ts <workflow-id> <out.json> [run-id]
 *
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (src/config.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { loadConfig } from '../src/config';

const HistoryType = temporal.api.history.v1.History;

/** A history as a plain JSON-serialisable object (see the format above). */
export function historyToFixture(history: temporal.api.history.v1.IHistory): Record<string, unknown> {
  return HistoryType.toObject(HistoryType.fromObject(history), { longs: String, enums: String, bytes: String });
}

/**
 * A history read back from {@link historyToFixture}'s output, ready for `Worker.runReplayHistories`.
 * @throws Error when `json` is not a history object
 */
export function historyFromFixture(json: unknown): temporal.api.history.v1.History {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { events?: unknown }).events))
    throw new Error('not a history: expected {events: [...]}');
  return HistoryType.fromObject(json as Record<string, unknown>);
}

/**
 * Writes the history of one run (the latest run when `runId` is omitted) to `file`, creating
 * its folder. @returns the number of events written
 * @throws WorkflowNotFoundError when the workflow (or run) does not exist
 */
export async function exportHistory(client: Client, workflowId: string, file: string, runId?: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(historyToFixture(history), null, 1) + '\n');
  return history.events?.length ?? 0;
}

async function main(): Promise<void> {
  const [workflowId, file, runId] = process.argv.slice(2);
  if (!workflowId || !file) {
    console.error('usage: tsx temporal/export-history.ts <workflow-id> <out.json> [run-id]');
    process.exit(2);
  }
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporalAddress });
  try {
    const events = await exportHistory(new Client({ connection, namespace: config.temporalNamespace }), workflowId, path.resolve(file), runId);
    console.log(`wrote ${events} events of ${workflowId}${runId ? ` (run ${runId})` : ''} to ${file}`);
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
