// The fault checker's ground truth, from an implementation that is not ours: `etcdctl watch`
// (etcd's Go clientv3) on the whole prefix, one process per history epoch (an etcd restored
// from an older snapshot starts a new one). Every change is kept with its revision, the object's
// color label and the marker label of the write that made it; a sentinel key outside the
// resources (written by the driver) is the barrier that says the truth has caught up.

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Change } from './watch-history.js';

export interface TruthChange extends Change {
  /** The `w` label of the object after the change (the write that made it), if any. */
  marker?: string;
  deleted: boolean;
}

interface RawKv {
  key: string;
  mod_revision?: number;
  value?: string;
}
interface RawResponse {
  Events?: { type?: number; kv: RawKv; prev_kv?: RawKv }[];
}

const labelsOf = (b64: string | undefined): Record<string, string> | undefined => {
  if (!b64) return undefined;
  try {
    return (JSON.parse(Buffer.from(b64, 'base64').toString('utf8')) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
  } catch {
    return undefined;
  }
};

export class TruthWatch {
  readonly changes: TruthChange[] = [];
  /** The highest revision of the sentinel key seen. */
  sentinel = 0;
  private readonly child: ChildProcess;
  private readonly resourcePrefix: string;

  /**
   * Watches `etcdPrefix`/ from `fromRevision` (exclusive) on `endpoints`; changes under
   * `resourcePrefix` (etcd-side) are kept by name, the key `sentinelKey` moves `sentinel`.
   */
  constructor(endpoints: string, etcdPrefix: string, resourcePrefix: string, private readonly sentinelKey: string, fromRevision: number) {
    this.resourcePrefix = resourcePrefix;
    this.child = spawn(
      process.env.ETCDCTL_BIN ?? 'etcdctl',
      ['--endpoints', endpoints, '--keepalive-time', '2s', '--keepalive-timeout', '4s', 'watch', '--prefix', `${etcdPrefix}/`, '--prev-kv', '--rev', String(fromRevision + 1), '-w', 'json'],
      { env: { ...process.env, ETCDCTL_API: '3' }, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.onLine(line));
  }

  private onLine(line: string): void {
    if (!line.startsWith('{')) return;
    const res = JSON.parse(line) as RawResponse;
    for (const e of res.Events ?? []) {
      const key = Buffer.from(e.kv.key, 'base64').toString('utf8');
      const rv = Number(e.kv.mod_revision ?? 0);
      if (key === this.sentinelKey) {
        this.sentinel = Math.max(this.sentinel, rv);
        continue;
      }
      if (!key.startsWith(this.resourcePrefix)) continue;
      const deleted = e.type === 1;
      const before = labelsOf(e.prev_kv?.value);
      const after = deleted ? undefined : labelsOf(e.kv.value);
      this.changes.push({ rv, name: key.slice(this.resourcePrefix.length), before: before ? (before.color ?? '') : undefined, after: after ? (after.color ?? '') : undefined, marker: after?.w, deleted });
    }
  }

  /** Waits (bounded) until the truth has seen the sentinel at `revision` or later. */
  async caughtUp(revision: number, ms = 60_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.sentinel < revision) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
