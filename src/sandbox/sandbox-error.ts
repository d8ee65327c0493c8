/**
 * The one error a flow's custom_code node gets from the Python sandbox (docs/sandbox.md "The Python sandbox"). Its `kind` says what happened; its message is meant for
 * the node's error as the user sees it.
 */

/**
 * What went wrong:
 * - `unavailable`: bubblewrap or the interpreter is missing or cannot create its namespaces; no
 *   code ran (user code never runs unconfined);
 * - `timeout`: the node's `timeout_seconds` spent (wall clock of its calls, or CPU time);
 * - `memory`: MemoryError under the address-space limit, or killed for memory;
 * - `output_limit`: one page's result is larger than the output limit;
 * - `print_limit`: the node printed more than the print limit (the process is killed);
 * - `forbidden`: the code tried something the sandbox does not offer (files outside /scratch,
 *   network, processes, environment variables, ctypes, js, pyodide);
 * - `code_error`: the code raised, does not compile, or defines no `transform`;
 * - `invalid_output`: `transform` returned something other than a list of dicts of JSON values;
 * - `crashed`: the interpreter died or broke the protocol for another reason.
 */
export type SandboxErrorKind =
  'unavailable' | 'timeout' | 'memory' | 'output_limit' | 'print_limit' | 'forbidden' | 'code_error' | 'invalid_output' | 'crashed';

/** A failure of a sandboxed Python run; after one, the session is closed. */
export class SandboxError extends Error {
  /** Lines the code printed before it failed (stdout and stderr), when known; for the run's updates. */
  printed: string[] = [];

  constructor(
    readonly kind: SandboxErrorKind,
    message: string,
    /** The Python exception's class name (e.g. `KeyError`), when the error came from Python. */
    readonly pythonType: string | null = null,
    /** The Python traceback of the user's code (runner frames removed), or '' when there is none. */
    readonly traceback: string = '',
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
