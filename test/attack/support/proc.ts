// The server's own view of its resources, read from /proc (Linux): open file descriptors (each
// connection is one) and resident memory. The attack suite runs the server as a child process so
// that these are the server's alone, not the attacker's.

import { readdirSync, readFileSync } from 'node:fs';

/** Open file descriptors of `pid` (undefined once it is gone). */
export function openFds(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** Resident set size of `pid` in bytes (undefined once it is gone). */
export function rssBytes(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's descriptors and RSS every `everyMs` until stopped; keeps peaks and last values. */
export class ProcSampler {
  peakFds = 0;
  peakRss = 0;
  lastFds = 0;
  lastRss = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): void {
    const fds = openFds(this.pid);
    const rss = rssBytes(this.pid);
    if (fds !== undefined) {
      this.lastFds = fds;
      this.peakFds = Math.max(this.peakFds, fds);
    }
    if (rss !== undefined) {
      this.lastRss = rss;
      this.peakRss = Math.max(this.peakRss, rss);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}
