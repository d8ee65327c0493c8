/**
 * What the Python sandbox makes of its runner's responses and of an interpreter that ended
 * without answering (src/sandbox/sandbox-protocol.ts): the cases the process tests
 * cannot produce on demand (a garbled protocol, the kernel's SIGKILL at the CPU hard limit, a
 * bwrap that cannot create namespaces).
 */
import { SandboxError } from '../../../src/sandbox/sandbox-error';
import { exitError, parseResponse } from '../../../src/sandbox/sandbox-protocol';

test('responses: ready, rows, error', () => {
  expect(parseResponse('{"ready":true,"printed_bytes":0}')).toEqual({ type: 'ready', printedBytes: 0 });
  expect(parseResponse('{"rows":[{"a":1}],"printed_bytes":12}')).toEqual({ type: 'rows', rows: [{ a: 1 }], printedBytes: 12 });
  const error = parseResponse('{"error":{"kind":"code_error","type":"KeyError","message":"\'x\'","traceback":"Traceback ..."},"printed_bytes":3}');
  expect(error).toMatchObject({ type: 'error', printedBytes: 3 });
  if (error instanceof SandboxError || error.type !== 'error') throw new Error('expected an error response');
  expect(error.error).toMatchObject({ kind: 'code_error', pythonType: 'KeyError', message: "KeyError: 'x'", traceback: 'Traceback ...' });
});

test('a garbled or forged response is a crashed protocol, never rows', () => {
  for (const line of ['not json', '{"rows":[]}', '{"printed_bytes":1}', '[1]']) {
    const parsed = parseResponse(line);
    expect(parsed).toBeInstanceOf(SandboxError);
    expect((parsed as SandboxError).kind).toBe('crashed');
  }
  expect((parseResponse('{"rows":[1],"printed_bytes":0}') as SandboxError).kind).toBe('invalid_output');
  const unknownKind = parseResponse('{"error":{"kind":"unavailable","message":"x"},"printed_bytes":0}');
  expect(unknownKind).toMatchObject({ type: 'error', error: { kind: 'crashed' } });
});

test('an interpreter that ended without answering', () => {
  expect(exitError(152, null, 5, true, '').kind).toBe('timeout'); // bwrap: 128 + SIGXCPU
  expect(exitError(null, 'SIGXCPU', 5, true, '').message).toContain('5 s of CPU time');
  expect(exitError(137, null, 5, true, '').kind).toBe('timeout'); // SIGKILL at the CPU hard limit
  expect(exitError(1, null, 5, true, 'Traceback...\nMemoryError\n').kind).toBe('memory');
  expect(exitError(1, null, 5, false, 'bwrap: No permissions to create new namespace').kind).toBe('unavailable');
  const crashed = exitError(139, null, 5, true, 'Fatal Python error: Segmentation fault');
  expect(crashed.kind).toBe('crashed');
  expect(crashed.message).toContain('signal 11');
});
