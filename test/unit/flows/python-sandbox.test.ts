/**
 * Flows' Python sandbox as a custom_code node uses it: the `transform(rows)` contract
 * over several pages, printed lines, the user's errors with their traceback, results that are not
 * a list of dicts of JSON values, the node's time budget over all its calls, and the session's
 * life cycle (one error ends it; close removes everything). The escape suite is
 * python-sandbox-escape.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PythonTransformSession, SandboxError } from '../../../src/sandbox/python-sandbox';
import { SCRATCH_PREFIX } from '../../../src/sandbox/scratch-dir';
import { waitUntil } from '../../helpers/wait';
import { expectNothingLeft, runFailing, runPages, sandboxOptions, scratchDirs } from './sandbox-helpers';

let scratchBefore: string[];
beforeAll(() => {
  scratchBefore = scratchDirs();
});
afterEach(async () => {
  await expectNothingLeft(scratchBefore);
});

const ADD_TOTAL = `
calls = 0
def transform(rows):
    global calls
    calls += 1
    return [dict(r, total=r["price"] * r["qty"], page=calls) for r in rows]
`;

test('a transform over several pages keeps one interpreter and returns each page', async () => {
  const pages = [0, 1, 2].map((p) => Array.from({ length: 50 }, (_, i) => ({ sku: `S-${p}-${i}`, price: 2.5, qty: i, tags: ['a', { deep: [null, true] }] })));
  const result = await runPages(ADD_TOTAL, pages);
  if (result instanceof SandboxError) throw result;
  expect(result).toHaveLength(3);
  result.forEach((r, p) => {
    expect(r.rows).toHaveLength(50);
    expect(r.rows[7]).toEqual({ sku: `S-${p}-7`, price: 2.5, qty: 7, tags: ['a', { deep: [null, true] }], total: 17.5, page: p + 1 });
  });
});

test('an empty page and a transform that drops or adds rows', async () => {
  const code = `def transform(rows):\n    return [r for r in rows if r["keep"]] + [{"added": len(rows)}]`;
  const result = await runPages(code, [[], [{ keep: true }, { keep: false }]]);
  if (result instanceof SandboxError) throw result;
  expect(result.map((r) => r.rows)).toEqual([[{ added: 0 }], [{ keep: true }, { added: 2 }]]);
});

test("print and stderr are captured as the page's lines; the module's own prints come with the first page", async () => {
  const code = `
import sys
print("loading")
def transform(rows):
    for r in rows:
        print("row", r["id"], "é✓")
    sys.stderr.write("warned\\n")
    print("no newline", end="")
    return rows
`;
  const result = await runPages(code, [[{ id: 1 }, { id: 2 }], [{ id: 3 }]]);
  if (result instanceof SandboxError) throw result;
  expect(result[0].printed).toEqual(['loading', 'row 1 é✓', 'row 2 é✓', 'warned', 'no newline']);
  expect(result[1].printed).toEqual(['row 3 é✓', 'warned', 'no newline']);
});

test('the scratch directory is private, writable, works with tempfile, and is gone after close', async () => {
  const code = `
import tempfile, os
def transform(rows):
    with open("notes.txt", "w") as f:
        f.write("hello")
    fd, name = tempfile.mkstemp()
    os.close(fd)
    return [{"cwd": os.getcwd(), "read": open("/scratch/notes.txt").read(), "tmp": name.startswith("/scratch/"), "files": sorted(os.listdir("."))[:1]}]
`;
  const result = await runPages(code, [[]]);
  if (result instanceof SandboxError) throw result;
  expect(result[0].rows).toEqual([{ cwd: '/scratch', read: 'hello', tmp: true, files: ['notes.txt'] }]);
});

test('pure standard library modules import and work (json, re, datetime, decimal, statistics, zoneinfo)', async () => {
  const code = `
import json, re, datetime, decimal, statistics, collections, itertools, math, zoneinfo, hashlib, uuid
def transform(rows):
    return [{"re": re.sub(r"\\s+", " ", " a  b "), "d": str(decimal.Decimal("1.10") * 2), "mean": statistics.mean([1, 2, 3]),
             "date": datetime.date(2026, 11, 24).isoformat(), "sha": hashlib.sha256(b"x").hexdigest()[:8], "uuid": len(str(uuid.uuid4()))}]
`;
  const result = await runPages(code, [[]]);
  if (result instanceof SandboxError) throw result;
  expect(result[0].rows[0]).toEqual({ re: ' a b ', d: '2.20', mean: 2, date: '2026-11-24', sha: '2d711642', uuid: 36 });
});

test("the user's exception: its type, message and a traceback that points at the line", async () => {
  const code = `def helper(row):\n    return row["price"]\n\ndef transform(rows):\n    return [{"p": helper(r)} for r in rows]\n`;
  const error = await runFailing(code, sandboxOptions(), [{ id: 1 }]);
  expect(error.kind).toBe('code_error');
  expect(error.pythonType).toBe('KeyError');
  expect(error.message).toBe("KeyError: 'price'");
  expect(error.traceback).toContain('File "<transform>", line 2, in helper');
  expect(error.traceback).toContain('return row["price"]');
  expect(error.traceback).not.toContain('runner.py');
});

test('lines printed before the error come with it', async () => {
  const error = await runFailing(`def transform(rows):\n    print("about to fail")\n    raise ValueError("bad row")\n`);
  expect(error.kind).toBe('code_error');
  expect(error.message).toBe('ValueError: bad row');
  expect(error.printed).toEqual(['about to fail']);
});

test.each([
  ['not a list', 'return {"a": 1}', 'transform must return a list of dicts, got dict'],
  ['a list of something else', 'return [1, 2]', 'transform must return a list of dicts: row 0 is int'],
  ['None (no return)', 'pass', 'transform must return a list of dicts, got NoneType'],
  ['a value that is not JSON', 'import decimal\n    return [{"price": decimal.Decimal("1.5")}]', "row 0, field 'price': Decimal is not JSON-serialisable"],
  ['NaN', 'return [{"x": float("nan")}]', "row 0, field 'x'"],
  ['a key that is not a string', 'return [{1: "x"}]', 'string keys: row 0 has the key 1 (int)'],
  ['an unpaired surrogate', 'return [{"x": "\\ud800"}]', 'unpaired surrogate'],
])('an invalid result: %s', async (_name, line, message) => {
  const error = await runFailing(`def transform(rows):\n    ${line}\n`);
  expect(error.kind).toBe('invalid_output');
  expect(error.message).toContain(message);
});

test('code without transform, or with a transform that is not callable', async () => {
  for (const code of ['def transfrom(rows):\n    return rows\n', 'transform = 5\n']) {
    const error = await PythonTransformSession.start(code, sandboxOptions()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).kind).toBe('code_error');
    expect((error as SandboxError).message).toContain('the code must define a function `def transform(rows: list[dict]) -> list[dict]`');
  }
});

test('a syntax error names its line', async () => {
  const error = await PythonTransformSession.start('def transform(rows):\n    return [r for r in rows\n', sandboxOptions()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SandboxError);
  expect((error as SandboxError).kind).toBe('code_error');
  expect((error as SandboxError).pythonType).toBe('SyntaxError');
  expect((error as SandboxError).message).toMatch(/SyntaxError: .*line 2/);
});

test("an exception or an endless loop in the module's body fails the start", async () => {
  const raised = await PythonTransformSession.start('raise RuntimeError("no config")\n', sandboxOptions()).catch((e: unknown) => e);
  expect((raised as SandboxError).kind).toBe('code_error');
  expect((raised as SandboxError).message).toBe('RuntimeError: no config');
  const looped = await PythonTransformSession.start('while True:\n    pass\n', sandboxOptions(1)).catch((e: unknown) => e);
  expect((looped as SandboxError).kind).toBe('timeout');
});

test('a page larger than the output limit', async () => {
  const error = await runFailing(`def transform(rows):\n    return [{"x": "y" * 5000}]\n`, sandboxOptions(10, { outputBytes: 1000 }));
  expect(error.kind).toBe('output_limit');
  expect(error.message).toContain('the limit is 1000 bytes');
});

test('a page too large for the memory limit is a memory error, not a crash', async () => {
  const options = sandboxOptions(10, { memoryBytes: 128 * 1024 * 1024 });
  const error = await runFailing('def transform(rows):\n    return rows\n', options, [{ blob: 'x'.repeat(100 * 1024 * 1024) }]);
  expect(error.kind).toBe('memory');
});

test('a print stream the code replaced or closed does not break the protocol', async () => {
  const code =
    'import sys, io\ndef transform(rows):\n    print("before")\n    sys.stdout = io.StringIO()\n    print("hidden")\n    sys.stderr.close()\n    return rows\n';
  const result = await runPages(code, [[{ a: 1 }], [{ a: 2 }]]);
  if (result instanceof SandboxError) throw result;
  expect(result.map((r) => r.rows)).toEqual([[{ a: 1 }], [{ a: 2 }]]);
  expect(result[0].printed).toEqual(['before']);
});

test('timeout_seconds is a budget over all calls: time between pages does not count, time in them adds up', async () => {
  // The budget's clock is injected: an hour passes between two pages without anybody waiting for
  // it. The pages' own sleeps (4 s each) add up past the 10 s budget on the third, however busy
  // the machine is: two pages leave at most 2 s, the third needs 4.
  let offset = 0;
  const options = sandboxOptions(10, { now: () => Date.now() + offset });
  const session = await PythonTransformSession.start('import time\ndef transform(rows):\n    time.sleep(rows[0]["s"])\n    return rows\n', options);
  try {
    await session.transform([{ s: 4 }]);
    offset += 3_600_000; // idle: not counted (else the next page would time out at once)
    await session.transform([{ s: 4 }]);
    const error = await session.transform([{ s: 4 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).kind).toBe('timeout');
  } finally {
    await session.close();
  }
});

test('after an error the session stays failed with that error; close is idempotent', async () => {
  const session = await PythonTransformSession.start('def transform(rows):\n    return rows[0]["missing"]\n', sandboxOptions());
  const first = await session.transform([{}]).catch((e: unknown) => e);
  const second = await session.transform([{ missing: [] }]).catch((e: unknown) => e);
  expect((first as SandboxError).kind).toBe('code_error');
  expect(second).toBe(first);
  await Promise.all([session.close(), session.close()]);
  await session.close();
});

test('calls are queued: pages sent at once come back in order', async () => {
  const session = await PythonTransformSession.start('def transform(rows):\n    return [{"n": r["n"] * 2} for r in rows]\n', sandboxOptions());
  try {
    const results = await Promise.all([1, 2, 3, 4].map((n) => session.transform([{ n }])));
    expect(results.map((r) => r.rows[0].n)).toEqual([2, 4, 6, 8]);
  } finally {
    await session.close();
  }
});

test('two sessions at once are independent', async () => {
  const [a, b] = await Promise.all([
    runPages('X = 1\ndef transform(rows):\n    return [{"x": X}]\n', [[]]),
    runPages('X = 2\ndef transform(rows):\n    return [{"x": X}]\n', [[]]),
  ]);
  expect([a, b]).toEqual([[{ rows: [{ x: 1 }], printed: [] }], [{ rows: [{ x: 2 }], printed: [] }]]);
});

test('close while a page runs rejects it and kills the interpreter', async () => {
  const before = scratchDirs();
  const session = await PythonTransformSession.start(
    'def transform(rows):\n    open("running", "w").close()\n    while True:\n        pass\n',
    sandboxOptions(30),
  );
  const running = session.transform([{}]).catch((e: unknown) => e);
  // The page is running once its marker exists in the session's scratch directory.
  const [scratch] = scratchDirs().filter((d) => !before.includes(d));
  await waitUntil(() => fs.existsSync(path.join(os.tmpdir(), scratch, 'running')), 'the page to run', 30_000, 20);
  await session.close();
  expect(((await running) as SandboxError).message).toContain('closed');
});

test('a scratch directory the code locked (chmod 000) is still removed', async () => {
  const result = await runPages(
    'import os\ndef transform(rows):\n    os.makedirs("a/b")\n    open("a/b/f", "w").write("x")\n    os.chmod("a", 0)\n    return rows\n',
    [[]],
  );
  expect(result).not.toBeInstanceOf(SandboxError);
  expect(fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(SCRATCH_PREFIX) && !scratchBefore.includes(d))).toEqual([]);
});

test('scratch directories of a killed worker are removed by the next start; those of live processes stay', async () => {
  const deadPid = spawnSync('/bin/true').pid;
  const dead = path.join(os.tmpdir(), `${SCRATCH_PREFIX}${deadPid}-killed`);
  const live = path.join(os.tmpdir(), `${SCRATCH_PREFIX}${process.ppid}-alive`);
  for (const dir of [dead, live]) {
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sub', 'left.txt'), 'user data');
  }
  try {
    const result = await runPages(ADD_TOTAL, [[]]);
    expect(result).not.toBeInstanceOf(SandboxError);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  } finally {
    fs.rmSync(dead, { recursive: true, force: true });
    fs.rmSync(live, { recursive: true, force: true });
  }
});

test('unavailable: a missing bwrap or an interpreter outside /usr is refused before anything runs', async () => {
  const missing = await PythonTransformSession.start(ADD_TOTAL, sandboxOptions(5, { bwrapPath: path.join(os.tmpdir(), 'no-such-bwrap') })).catch(
    (e: unknown) => e,
  );
  expect((missing as SandboxError).kind).toBe('unavailable');
  expect((missing as SandboxError).message).toMatch(/Python sandbox unavailable: bubblewrap .* is missing/);
  const outside = await PythonTransformSession.start(ADD_TOTAL, sandboxOptions(5, { pythonPath: '/opt/python3' })).catch((e: unknown) => e);
  expect((outside as SandboxError).kind).toBe('unavailable');
});

test('timeout_seconds must be an integer in 1–1800', async () => {
  for (const timeoutSeconds of [0, 1801, 1.5]) {
    await expect(PythonTransformSession.start(ADD_TOTAL, sandboxOptions(timeoutSeconds))).rejects.toThrow(RangeError);
  }
});
