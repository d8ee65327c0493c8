"""Runs one flow custom_code node's Python inside the sandbox (docs/sandbox.md, "The Python sandbox").

Started by python-sandbox.ts as `python3 -I -S -B /sandbox/runner.py` inside bubblewrap, with:

- fd 0: requests from Node, one JSON object per line: first
  `{"code": str, "output_bytes": int}`, then `{"rows": [...]}` per page;
- fd 3: responses to Node, one JSON object per line: `{"ready": true}` after the code was
  compiled and run, `{"rows": [...]}` per page, or `{"error": {"kind", "type", "message",
  "traceback"}}`; every response carries `printed_bytes`, the bytes written so far through
  `sys.stdout`/`sys.stderr`, so Node knows which printed lines belong to the page;
- fd 1: what the user code prints (Python-level stdout and stderr both go here); Node reads it as
  lines, with a byte cap;
- fd 2: the interpreter's own fatal messages, for Node's diagnostics.

The contract: the code defines `def transform(rows: list[dict]) -> list[dict]`, pure standard
library. The kernel confinement (namespaces, read-only /usr, no network, rlimits) is the real
boundary; the audit hook installed here only turns forbidden actions into clear errors.
"""

import builtins
import io
import json
import linecache
import os
import sys
import traceback
from collections.abc import MutableMapping

SCRATCH = "/scratch"
FILENAME = "<transform>"
FORBIDDEN_IMPORTS = {
    "ctypes": "ctypes (native code) is not available in the sandbox",
    "_ctypes": "ctypes (native code) is not available in the sandbox",
    "js": "the JavaScript bridge (js) does not exist in the sandbox",
    "pyodide": "pyodide and its JavaScript bridge are not available in the sandbox",
    "_posixsubprocess": "starting processes is not available in the sandbox",
    "_xxsubinterpreters": "sub-interpreters are not available in the sandbox",
    "_testcapi": "CPython's test C API is not available in the sandbox",
    "_testinternalcapi": "CPython's test C API is not available in the sandbox",
    "_ctypes_test": "ctypes (native code) is not available in the sandbox",
}
PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn"}
NETWORK_EVENTS = {"socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto"}
# audit event -> indexes of its path arguments that are written to
WRITE_PATH_EVENTS = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "shutil.rmtree": (0,),
}
LIST_EVENTS = {"os.listdir", "os.scandir"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class SandboxPermissionError(PermissionError):
    """A file or directory the sandbox does not give access to; a PermissionError so that stdlib code
    which tries alternatives (tempfile, platform) moves on as it would on EACCES."""

    sandbox_violation = True


class SandboxImportError(ImportError):
    """An import the sandbox forbids (ctypes, js, pyodide, ...)."""

    sandbox_violation = True


class SandboxForbiddenError(RuntimeError):
    """A forbidden action: processes, network, environment variables."""

    sandbox_violation = True


def readable_roots():
    """The stdlib, the time zone data and /scratch: the only trees user code may read."""
    paths = {os.path.dirname(os.__file__), SCRATCH, "/usr/share/zoneinfo"}
    paths.update(p for p in sys.path if p)
    return tuple(sorted(paths))


def under(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def real(path):
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.realpath(os.path.abspath(path))


def install_guard():
    """Installs the audit hook (PEP 578): a clear error for each action the sandbox does not offer."""
    read_roots = readable_roots() + ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
    write_roots = (SCRATCH, "/dev/null")

    def check_path(path, roots, what):
        if isinstance(path, int) or path is None:
            return
        resolved = real(path)
        if not under(resolved, roots):
            raise SandboxPermissionError(f"{what} {path!r} is not allowed: the sandbox only gives access to {SCRATCH} (and reads of the Python standard library)")

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (mode is None and isinstance(flags, int) and flags & WRITE_FLAGS)
            if writing:
                check_path(path, write_roots, "writing")
            else:
                check_path(path, read_roots, "reading")
        elif event == "import":
            name = args[0] or ""
            top = name.split(".")[0]
            reason = FORBIDDEN_IMPORTS.get(name) or FORBIDDEN_IMPORTS.get(top)
            if reason:
                raise SandboxImportError(f"import of {name!r} is not allowed: {reason}")
        elif event in PROCESS_EVENTS:
            raise SandboxForbiddenError(f"{event} is not allowed: starting or forking processes is not available in the sandbox")
        elif event in NETWORK_EVENTS:
            raise SandboxForbiddenError(f"{event} is not allowed: network access is not available in the sandbox")
        elif event in WRITE_PATH_EVENTS:
            for i in WRITE_PATH_EVENTS[event]:
                if i < len(args):
                    check_path(args[i], write_roots, f"{event} of")
        elif event in LIST_EVENTS:
            check_path(args[0] if args else ".", read_roots, "listing")
        elif event == "cpython.PyInterpreterState_New":
            raise SandboxForbiddenError("sub-interpreters are not available in the sandbox")

    # subprocess imports fine and its Popen fails on the audit event; its C helper, imported here
    # before the hook is added, cannot be called directly, and a fresh import of it is refused above.
    import _posixsubprocess

    def fork_exec(*_args, **_kwargs):
        raise SandboxForbiddenError("_posixsubprocess.fork_exec is not allowed: starting or forking processes is not available in the sandbox")

    _posixsubprocess.fork_exec = fork_exec
    sys.addaudithook(hook)


def guard_environment():
    """`os.environ`, `os.environb` and `os.getenv` raise for user code; standard-library callers
    (tempfile, os.path.expanduser) still see the sandbox's own harmless variables (TMPDIR, HOME)."""
    message = "environment variables are not available in the sandbox"
    trusted = (os.path.dirname(os.__file__) + "/", "<frozen ")
    skipped = (__file__, "<frozen _collections_abc>")

    def from_stdlib():
        # the first frame that is neither this runner nor a Mapping mixin decides
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename in skipped:
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith(trusted)

    def check():
        if not from_stdlib():
            raise SandboxForbiddenError(message)

    class Environ(MutableMapping):
        """os.environ for the standard library only."""

        def __init__(self, real):
            self._real = real

        def __getitem__(self, key):
            check()
            return self._real[key]

        def __setitem__(self, key, value):
            check()
            self._real[key] = value

        def __delitem__(self, key):
            check()
            del self._real[key]

        def __iter__(self):
            check()
            return iter(self._real)

        def __len__(self):
            check()
            return len(self._real)

        def __repr__(self):
            check()
            return repr(self._real)

        def copy(self):
            check()
            return dict(self._real)

    real_getenv = os.getenv

    def getenv(key, default=None):
        check()
        return real_getenv(key, default)

    os.environ = Environ(os.environ)
    os.environb = Environ(os.environb)
    os.getenv = getenv
    os.getenvb = getenv


class CountingWriter(io.RawIOBase):
    """fd 1 as a raw stream that counts the bytes written through it (see `printed_bytes`)."""

    def __init__(self, fd):
        super().__init__()
        self.fd = fd
        self.count = 0

    def writable(self):
        return True

    def write(self, data):
        view = memoryview(data)
        total = len(view)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        self.count += total
        return total


def violation(exc):
    """Whether `exc` (or the exception it was raised from or during) came from the guard."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if getattr(exc, "sandbox_violation", False):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def error_of(exc, kind=None):
    """A response's error for an exception of the user code: the traceback without the runner's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    if kind is None:
        kind = "memory" if isinstance(exc, MemoryError) else "forbidden" if violation(exc) else "code_error"
    if kind == "memory":
        traceback.clear_frames(exc.__traceback__)  # frees the user's locals before formatting
    try:
        report = traceback.TracebackException(type(exc), exc, tb)
        report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != __file__])
        text = "".join(report.format())
    except Exception:  # noqa: BLE001 - the message must get out even when formatting fails
        text = ""
    message = str(exc) or type(exc).__name__
    if kind == "memory":
        message = "the code ran out of memory (MemoryError)"
    return {"kind": kind, "type": type(exc).__name__, "message": message, "traceback": text[-20000:]}


def describe(value):
    return type(value).__name__


def check_rows(result):
    """Raises ValueError naming the first row or field that is not a dict of JSON values."""
    if not isinstance(result, list):
        raise ValueError(f"transform must return a list of dicts, got {describe(result)}")
    for i, row in enumerate(result):
        if not isinstance(row, dict):
            raise ValueError(f"transform must return a list of dicts: row {i} is {describe(row)}")
        for key in row:
            if not isinstance(key, str):
                raise ValueError(f"transform must return dicts with string keys: row {i} has the key {key!r} ({describe(key)})")


def encode_rows(result, limit):
    """The response line of a page's result, checked (list of dicts, JSON values, size <= limit)."""
    check_rows(result)

    def refuse(value):
        raise TypeError(f"{describe(value)} is not JSON-serialisable")

    try:
        text = json.dumps({"rows": result}, ensure_ascii=False, allow_nan=False, default=refuse, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        for i, row in enumerate(result):
            for key, value in row.items():
                try:
                    json.dumps(value, ensure_ascii=False, allow_nan=False, default=refuse)
                except (TypeError, ValueError) as inner:
                    raise ValueError(f"row {i}, field {key!r}: {inner} (values must be JSON: str, int, float, bool, None, list, dict)") from None
        raise ValueError(f"the result is not JSON-serialisable: {exc}") from None
    except RecursionError:
        raise ValueError("the result nests too deeply (or refers to itself) to be JSON") from None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the result holds a string with an unpaired surrogate, which is not valid UTF-8") from None
    if len(data) > limit:
        raise OverflowError(f"the result of this page is {len(data)} bytes of JSON; the limit is {limit} bytes")
    return data


class Channel:
    """The protocol: requests on a private copy of fd 0, responses on a private copy of fd 3."""

    def __init__(self, out, stream):
        self.requests = io.open(os.dup(0), "rb", buffering=1 << 16)
        self.responses = os.dup(3)
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)  # user code reading stdin gets EOF, never a request
        os.close(null)
        os.close(3)
        self.out = out
        self.stream = stream

    def read(self):
        line = self.requests.readline()
        return json.loads(line) if line else None

    def send_bytes(self, body):
        """Writes `body` (a JSON object without its closing brace) plus printed_bytes and a newline."""
        try:
            self.stream.flush()  # the runner's own print stream, whatever the code did to sys.stdout
        except Exception:  # noqa: BLE001 - a user-closed stream must not stop the response
            pass
        tail = b',"printed_bytes":' + str(self.out.count).encode() + b"}\n"
        view = memoryview(body[:-1] + tail)
        while view:
            view = view[os.write(self.responses, view) :]

    def send(self, obj):
        self.send_bytes(json.dumps(obj, ensure_ascii=True).encode())


def fail(channel, error):
    """Sends the node's error, then waits for Node to end the process (an exit here would race the response)."""
    channel.send({"error": error})
    while channel.read() is not None:
        pass


def main():
    out = CountingWriter(1)
    stream = io.TextIOWrapper(io.BufferedWriter(out), encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True)
    sys.stdout = sys.__stdout__ = stream
    sys.stderr = sys.__stderr__ = stream
    channel = Channel(out, stream)
    init = channel.read()
    if init is None:
        return
    limit = int(init["output_bytes"])
    code = init["code"]
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    namespace = {"__name__": "__transform__", "__builtins__": builtins}
    if init.get("audit_guard", True):
        guard_environment()
        install_guard()
    del init
    try:
        exec(compile(code, FILENAME, "exec"), namespace)
        transform = namespace.get("transform")
        if not callable(transform):
            message = "the code must define a function `def transform(rows: list[dict]) -> list[dict]`"
            return fail(channel, {"kind": "code_error", "type": "MissingTransform", "message": message, "traceback": ""})
    except BaseException as exc:  # noqa: BLE001 - any failure of the user's module is the node's error
        return fail(channel, error_of(exc))
    channel.send({"ready": True})
    while True:
        try:
            request = channel.read()
        except MemoryError:
            message = "the page does not fit in the sandbox's memory (send smaller pages)"
            return fail(channel, {"kind": "memory", "type": "MemoryError", "message": message, "traceback": ""})
        if request is None:
            return
        rows = request["rows"]
        del request
        try:
            result = transform(rows)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            del rows
            return fail(channel, error_of(exc))
        del rows
        try:
            body = encode_rows(result, limit)
        except OverflowError as exc:
            return fail(channel, {"kind": "output_limit", "type": "OutputLimit", "message": str(exc), "traceback": ""})
        except MemoryError as exc:
            del result
            return fail(channel, error_of(exc, "memory"))
        except Exception as exc:  # noqa: BLE001 - ValueError from the checks, or the code's own objects failing to encode
            return fail(channel, {"kind": "invalid_output", "type": "InvalidOutput", "message": str(exc) or type(exc).__name__, "traceback": ""})
        del result
        channel.send_bytes(body)
        del body


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # noqa: BLE001 - the runner's own failure goes to Node's diagnostics (fd 2), not to the printed lines
        os.write(2, traceback.format_exc().encode("utf-8", "backslashreplace")[-8000:])
        os._exit(70)
