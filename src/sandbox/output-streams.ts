/**
 * Node's side of the sandbox's two output pipes (docs/sandbox.md, "The Python sandbox"): the
 * printed lines of the user code (fd 1, capped in bytes) and the protocol's JSON lines (fd 3,
 * capped per line). Both only collect; the session decides what a cap being hit means.
 */
import { StringDecoder } from 'node:string_decoder';

/**
 * Lines printed by the user code. The runner tells, with each response, how many bytes it had
 * written by then (`printed_bytes`); {@link waitFor} lets the session wait until those bytes have
 * arrived, so a page's lines are the lines printed while it ran.
 */
export class PrintCapture {
  private received = 0;
  private lines: string[] = [];
  private partial = '';
  private readonly decoder = new StringDecoder('utf8');
  private waiters: Array<{ bytes: number; resolve: () => void }> = [];
  private ended = false;

  /**
   * @param limitBytes bytes the code may print in all (stdout and stderr together)
   * @param onLimit called once when they are exceeded; what was printed past the limit is dropped
   */
  constructor(
    private readonly limitBytes: number,
    private readonly onLimit: () => void,
  ) {}

  /** Takes one chunk of fd 1. */
  push(chunk: Buffer): void {
    if (this.received > this.limitBytes) return;
    this.received += chunk.length;
    if (this.received > this.limitBytes) {
      this.onLimit();
      return;
    }
    const parts = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.lines.push(line);
    this.settle();
  }

  /** The pipe closed: nothing more will arrive, so no one waits any longer. */
  end(): void {
    this.ended = true;
    this.settle();
  }

  /** Resolves when `bytes` bytes in all have been received (or the pipe closed); never rejects. */
  waitFor(bytes: number): Promise<void> {
    if (this.ended || this.received >= bytes) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ bytes, resolve }));
  }

  /** The lines received since the last take, an unfinished last line included. */
  take(): string[] {
    const lines = this.lines;
    if (this.partial) lines.push(this.partial);
    this.lines = [];
    this.partial = '';
    return lines;
  }

  private settle(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (this.ended || this.received >= w.bytes) w.resolve();
      else this.waiters.push(w);
    }
  }
}

/** Splits fd 3 into lines; a line longer than `maxLineBytes` is refused as soon as it gets there. */
export class JsonLineReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private stopped = false;

  /**
   * @param maxLineBytes longest line accepted, in bytes
   * @param onLine each complete line, as UTF-8 text without its newline
   * @param onTooLong called once when a line passes `maxLineBytes`; the reader then stops
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: () => void,
  ) {}

  /** Takes one chunk of fd 3. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped && start < chunk.length) {
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      this.size += piece.length;
      if (this.size > this.maxLineBytes) {
        this.stopped = true;
        this.chunks = [];
        this.onTooLong();
        return;
      }
      this.chunks.push(piece);
      if (end < 0) return;
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      this.size = 0;
      start = end + 1;
      this.onLine(line);
    }
  }
}
