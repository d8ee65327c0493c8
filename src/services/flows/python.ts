/**
 * The Python of flows' custom_code nodes as the worker runs it: a {@link PythonSessionFactory}
 * over the bubblewrap sandbox (./sandbox/python-sandbox.ts; docs/sandbox.md, "The Python
 * sandbox") with the environment's programs and memory limit; a node's `memory_mib` overrides
 * the memory limit.
 */
import type { Config } from '../../config';
import type { PythonSessionFactory } from './nodes/custom-code';
import { PythonTransformSession } from '../../sandbox/python-sandbox';

/** The sandboxed interpreter factory of `config.pythonSandbox`. */
export function pythonSandbox(config: Pick<Config, 'pythonSandbox'>): PythonSessionFactory {
  return (code, limits) =>
    PythonTransformSession.start(code, {
      ...config.pythonSandbox,
      ...(limits.memoryMiB ? { memoryBytes: limits.memoryMiB * 1024 * 1024 } : {}),
      timeoutSeconds: limits.timeoutSeconds,
    });
}
