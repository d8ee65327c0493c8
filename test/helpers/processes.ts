/**
 * The host processes of the Python sandboxes one process started, read from /proc (Linux). Scoped
 * to that process, so other tests, other checkouts or other users on the machine
 * never count: a sandbox's setpriv / prlimit / bwrap carry its scratch directory
 * `<tmp>/flow-sandbox-<owner pid>-XXXXXX` in their command line (scratch-dir.ts), and the
 * interpreter descends from them. A process whose bwrap died is reparented and no longer counted;
 * bwrap's --die-with-parent takes the interpreter with it.
 */
import fs from 'node:fs';
import { SCRATCH_PREFIX } from '../../src/sandbox/scratch-dir';

interface ProcEntry {
  ppid: number;
  cmdline: string;
}

/** Every process now visible in /proc: pid → parent pid and command line. Throws when /proc cannot be read. */
function processTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  for (const name of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name in parentheses, which may itself hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(name), { ppid, cmdline: fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {
      continue; // gone meanwhile
    }
  }
  return table;
}

/**
 * The sandbox processes of `ownerPid` (a worker, or this test process) as `"<pid>: <command line>"`.
 * @throws Error when /proc is unreadable (a missing tool is an error, never a zero)
 */
export function sandboxProcessesOf(ownerPid: number): string[] {
  const table = processTable();
  if (table.size === 0) throw new Error('cannot list processes: /proc shows none');
  const tag = `${SCRATCH_PREFIX}${ownerPid}-`;
  const ours = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      const entry = table.get(p);
      if (!entry) return false;
      if (entry.cmdline.includes(tag)) return true;
      p = entry.ppid;
    }
    return false;
  };
  return [...table].filter(([pid]) => ours(pid)).map(([pid, e]) => `${pid}: ${e.cmdline}`);
}
