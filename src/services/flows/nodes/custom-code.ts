/**
 * The `custom_code` node (docs/api-review.md "Flows"): the flow's Python,
 * `def transform(rows: list[dict]) -> list[dict]`, run page by page in one isolated interpreter
 * (src/sandbox) within the node's `timeout_seconds`; what it prints becomes the
 * run's `updates`.
 */
import type { Knex } from 'knex';
import { completeNode, forEachInputPage, NodeContext } from '../execution';
import type { FlowRow } from '../rows';

/** One interpreter running one node's code, a page at a time. */
export interface PythonSession {
  /** Runs `transform` on one page. @throws the sandbox's error (code raised, a limit hit, sandbox missing) */
  transform(rows: FlowRow[]): Promise<{ rows: FlowRow[]; printed: string[] }>;
  /** Ends the interpreter and removes its scratch directory. */
  close(): Promise<void>;
}

/** Starts an interpreter for `code` with the node's limits. @throws the sandbox's error (e.g. no `transform`, sandbox unavailable) */
export type PythonSessionFactory = (code: string, limits: { timeoutSeconds: number; memoryMiB?: number }) => Promise<PythonSession>;

/** Default `timeout_seconds` of a node whose config has none (s). */
const DEFAULT_TIMEOUT_S = 300;

/**
 * Runs a `custom_code` node of a begun node context: one interpreter for the whole node, every
 * remaining input page through `transform`, output rows and printed lines committed per page.
 * @returns the node's output row count (the node is marked completed)
 * @throws the sandbox's error (the activity turns it into a node failure that is not retried)
 */
export async function runCustomCodeNode(knex: Knex, sandbox: PythonSessionFactory, ctx: NodeContext, beat: (page: number) => void): Promise<number> {
  const config = ctx.run.nodes.find((n) => n.id === ctx.node.node_id)?.config ?? {};
  const code = String(config.python_code ?? '');
  const session = await sandbox(code, {
    timeoutSeconds: Number(config.timeout_seconds ?? DEFAULT_TIMEOUT_S),
    ...(config.memory_mib ? { memoryMiB: Number(config.memory_mib) } : {}),
  });
  try {
    const count = await forEachInputPage(
      knex,
      ctx,
      async (rows) => {
        const out = await session.transform(rows);
        return { rows: out.rows, updates: out.printed.map((line) => `[${ctx.node.node_id}] ${line}`) };
      },
      undefined,
      beat,
    );
    await completeNode(knex, ctx, count);
    return count;
  } finally {
    await session.close();
  }
}
