/**
 * The escape suite of flows' Python sandbox:
 * every attempt to reach the host is a clear SandboxError on the node, the Jest process is alive
 * and unharmed afterwards, nothing outside the sandbox is touched, and no process or scratch
 * directory of the sandbox is left. The second half runs the same attempts without the audit
 * hook, to show the kernel confinement holds on its own (the hook only words the errors).
 *
 * Needs bubblewrap (`npm test`'s set-up installs Debian's when missing): without it these tests
 * fail, they never skip.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/config';
import { SandboxError } from '../../../src/sandbox/python-sandbox';
import { expectNothingLeft, runFailing, runPages, sandboxOptions, scratchDirs } from './sandbox-helpers';

const SECRET = `s3cr3t-${process.pid}-${Date.now()}`;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let dotEnv: string;
let scratchBefore: string[];

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
  process.env.SANDBOX_TEST_SECRET = SECRET;
  // A stand-in for the service's .env, on the host, readable by anyone (0644) so only the sandbox can stop the read.
  dotEnv = path.join(REPO_ROOT, `.env.sandbox-test-${process.pid}`);
  fs.writeFileSync(dotEnv, `DATABASE_URL=postgres://app:${SECRET}@127.0.0.1/x\n`, { mode: 0o644 });
  scratchBefore = scratchDirs();
});

afterEach(async () => {
  await expectNothingLeft(scratchBefore);
});

afterAll(() => {
  fs.rmSync(dotEnv, { force: true });
  delete process.env.SANDBOX_TEST_SECRET;
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** A transform body (indented under `def transform(rows):`) as a whole program. */
function body(lines: string, imports = 'import os'): string {
  return `${imports}\ndef transform(rows):\n${lines
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n    return rows\n`;
}

/** The error must not carry the secret or a line of /etc/passwd anywhere. */
function expectNoLeak(error: SandboxError): void {
  const all = [error.message, error.traceback, ...error.printed].join('\n');
  expect(all).not.toContain(SECRET);
  expect(all).not.toMatch(/root:x:0:0/);
  expect(all).not.toContain(process.env.DATABASE_URL ?? '\0');
}

test('the sandbox is available on this machine (bubblewrap and /usr/bin/python3; npm test installs them)', () => {
  const { bwrapPath, pythonPath } = sandboxOptions();
  expect({ bwrapPath, exists: fs.existsSync(bwrapPath) }).toEqual({ bwrapPath, exists: true });
  expect({ pythonPath, exists: fs.existsSync(pythonPath) }).toEqual({ pythonPath, exists: true });
});

describe('with the audit guard: each attempt is a clear error', () => {
  test('reading /etc/passwd', async () => {
    const error = await runFailing(body(`print(open('/etc/passwd').read())`));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain(`reading '/etc/passwd' is not allowed`);
    expectNoLeak(error);
  });

  test("reading the service's .env by its absolute path", async () => {
    const error = await runFailing(body(`print(open(${JSON.stringify(dotEnv)}).read())`));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('is not allowed');
    expectNoLeak(error);
  });

  test('writing a file outside the scratch directory', async () => {
    const target = path.join(os.tmpdir(), `sandbox-escape-${process.pid}-${Date.now()}`);
    const error = await runFailing(body(`open(${JSON.stringify(target)}, 'w').write('escaped')`));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain(`writing '${target}' is not allowed`);
    expect(fs.existsSync(target)).toBe(false);
  });

  test('opening a socket to PostgreSQL on 127.0.0.1:5432', async () => {
    const error = await runFailing(body(`socket.create_connection(('127.0.0.1', 5432), timeout=2)`, 'import socket'));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('network access is not available in the sandbox');
  });

  test.each([
    ['subprocess.run', `subprocess.run(['ls'])`, 'import subprocess'],
    ['os.system', `os.system('ls')`, 'import os'],
    ['os.execv', `os.execv('/bin/ls', ['ls'])`, 'import os'],
    ['os.posix_spawn', `os.posix_spawn('/bin/ls', ['ls'], {})`, 'import os'],
    ['os.fork', `os.fork()`, 'import os'],
    ['_posixsubprocess.fork_exec', `_posixsubprocess.fork_exec()`, 'import _posixsubprocess'],
  ])('spawning a process: %s', async (_name, call, imports) => {
    const error = await runFailing(body(call, imports));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toMatch(/starting or forking processes is not available in the sandbox/);
  });

  test.each([
    ['ctypes', 'ctypes (native code) is not available'],
    ['js', 'the JavaScript bridge (js) does not exist'],
    ['pyodide.ffi', 'pyodide and its JavaScript bridge are not available'],
  ])('importing %s', async (module, reason) => {
    const error = await runFailing(body(`import ${module}`, ''));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain(`import of '${module}' is not allowed: ${reason}`);
  });

  test.each([
    ['os.environ', `print(dict(os.environ))`],
    ["os.environ['…']", `print(os.environ['DATABASE_URL'])`],
    ['os.getenv', `print(os.getenv('SANDBOX_TEST_SECRET'))`],
    ['os.environb', `print(list(os.environb))`],
  ])('reading the environment: %s', async (_name, call) => {
    const error = await runFailing(body(call));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('environment variables are not available in the sandbox');
    expectNoLeak(error);
  });

  test('a fork bomb', async () => {
    const error = await runFailing(body(`while True:\n    os.fork()`));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('os.fork is not allowed');
  });

  test('an infinite loop with timeout_seconds 1', async () => {
    const error = await runFailing(body(`while True:\n    pass`), sandboxOptions(1));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/timeout_seconds \(1 s\)|1 s of CPU time/);
  });

  test('allocating 10 GiB at once', async () => {
    const error = await runFailing(body(`blob = bytearray(10 * 2**30)`));
    expect(error.kind).toBe('memory');
    expect(error.message).toContain('ran out of memory');
  });

  test('allocating 10 GiB bit by bit', async () => {
    const error = await runFailing(body(`chunks = []\nwhile len(chunks) < 10 * 1024:\n    chunks.append(bytearray(2**20))`));
    expect(error.kind).toBe('memory');
  });

  test('printing 1 GiB', async () => {
    const error = await runFailing(body(`line = 'x' * 1023\nfor _ in range(2**20):\n    print(line)`));
    expect(error.kind).toBe('print_limit');
    // Stopped at the limit, not after printing it all: the error says so.
    expect(error.message).toContain('printed more than 1048576 bytes');
  });

  test('printing 1 GiB as one string', async () => {
    const error = await runFailing(body(`print('x' * 2**30)`));
    expect(['memory', 'print_limit']).toContain(error.kind);
  });
});

describe('without the audit guard: the kernel confinement alone holds', () => {
  const bare = (timeoutSeconds = 10) => sandboxOptions(timeoutSeconds, { auditGuard: false });

  /** Runs `attempts` (name → Python expression) and returns each one's repr or exception. */
  async function attempt(attempts: Record<string, string>, imports = 'import os'): Promise<Record<string, string>> {
    const lines = Object.entries(attempts)
      .map(
        ([name, expr]) =>
          `try:\n    out[${JSON.stringify(name)}] = repr(${expr})\nexcept BaseException as e:\n    out[${JSON.stringify(name)}] = 'raised ' + repr(e)`,
      )
      .join('\n');
    const code = `${imports}\ndef transform(rows):\n    out = {}\n${lines
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}\n    return [out]\n`;
    const result = await runPages(code, [[]], bare());
    if (result instanceof SandboxError) throw result;
    return result[0].rows[0] as Record<string, string>;
  }

  test('host files are not there to read: /etc/passwd, the .env, /proc of the host', async () => {
    const out = await attempt({
      passwd: `open('/etc/passwd').read()`,
      dotenv: `open(${JSON.stringify(dotEnv)}).read()`,
      processes: `sorted(p for p in os.listdir('/proc') if p.isdigit())`,
    });
    expect(out.passwd).toMatch(/^raised FileNotFoundError/);
    expect(out.dotenv).toMatch(/^raised FileNotFoundError/);
    expect(JSON.parse(out.processes.replace(/'/g, '"')).length).toBeLessThanOrEqual(3); // the sandbox's own pid namespace
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });

  test('nothing outside /scratch can be written', async () => {
    const target = path.join(os.tmpdir(), `sandbox-escape-${process.pid}-${Date.now()}`);
    const out = await attempt({
      tmp: `open(${JSON.stringify(target)}, 'w').write('escaped')`,
      usr: `open('/usr/escaped', 'w').write('escaped')`,
      root: `os.mkdir('/escaped')`,
      shm: `open('/dev/shm/escaped', 'w').write('escaped')`,
      scratch: `open('/scratch/ok', 'w').write('fine')`,
    });
    expect(out.tmp).toMatch(/^raised (FileNotFoundError|OSError)/);
    expect(out.usr).toMatch(/Read-only file system/);
    expect(out.root).toMatch(/Read-only file system/);
    expect(out.shm).toMatch(/Read-only file system/);
    expect(out.scratch).toBe('4');
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync('/usr/escaped')).toBe(false);
  });

  test('no network: PostgreSQL on 127.0.0.1:5432 is refused (own loopback), the outside unreachable', async () => {
    const out = await attempt(
      {
        postgres: `socket.create_connection(('127.0.0.1', 5432), timeout=2)`,
        outside: `socket.create_connection(('1.1.1.1', 53), timeout=2)`,
      },
      'import socket',
    );
    expect(out.postgres).toMatch(/^raised ConnectionRefusedError/);
    expect(out.outside).toMatch(/^raised OSError.*(unreachable|101)/);
  });

  test("no secret of the worker's environment by any route", async () => {
    const out = await attempt({
      environ: `dict(os.environ)`,
      self: `open('/proc/self/environ', 'rb').read()`,
      init: `open('/proc/1/environ', 'rb').read()`,
      all: `[open('/proc/%s/environ' % p, 'rb').read() for p in os.listdir('/proc') if p.isdigit()]`,
      uid: `(os.getuid(), os.geteuid())`,
    });
    expect(process.env.DATABASE_URL).toBeTruthy();
    const text = JSON.stringify(out);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(process.env.DATABASE_URL);
    expect(text).not.toContain('DATABASE_URL');
    if (process.getuid?.() === 0) expect(out.uid).toBe('(65534, 65534)');
  });

  test('a fork bomb stops at the process limit and leaves nothing behind', async () => {
    const code = body(
      `children = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            import time\n            time.sleep(600)\n        children += 1\nexcept OSError as e:\n    print('stopped after', children, type(e).__name__)`,
    );
    const result = await runPages(code, [[{ id: 1 }]], bare());
    if (result instanceof SandboxError) throw result;
    expect(result[0].printed.join('\n')).toMatch(/^stopped after \d+ BlockingIOError$/m);
  });

  test('the code runs in its own pid namespace, apart from the worker', async () => {
    const out = await attempt({ pid: `os.getpid()`, ppid: `os.getppid()` });
    expect(Number(out.pid)).toBeLessThanOrEqual(3);
    expect(Number(out.pid)).not.toBe(process.pid);
  });

  test('an infinite loop ignoring SIGXCPU is still killed', async () => {
    const code = body(`import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass`);
    const error = await runFailing(code, bare(1));
    expect(error.kind).toBe('timeout');
  });
});
