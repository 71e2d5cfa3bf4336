// The etcd fault checker (in the style of etcd's robustness tests): two replicas (store, watch
// cache, registry) on one etcd, writers and watchers spread over both, while a driver injects
// faults on a schedule: member SIGKILL and restart, member SIGSTOP longer than an election (3
// members), compaction during writes, etcdctl multi-key transactions and `del --prefix` on our
// prefix, and a restore of every member to an older snapshot. The ground truth is etcdctl's own
// watch (chaos-truth.ts). Checked at quiet points and at the end:
// - each replica's cache (a list with resourceVersion=0) equals `etcdctl get --prefix` at the
//   revision the cache reports;
// - every client watch is gap-free and duplicate-free against the truth, or ends with 410 or a
//   clean close (then the watcher resumes or re-lists);
// - no acknowledged write is lost (unless an operator's restore rewound it);
// - no write answered as failed was applied, unless its answer (504) said it may have been.

import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { isStatusError } from '../../src/apimachinery/status-error.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { etcdctl, startEtcdCluster, type EtcdCluster } from './etcd-process.js';
import { TruthWatch, type TruthChange } from './chaos-truth.js';
import { expectedEvents, rng, watchSession, type Seen, type WatcherSpec } from './watch-history.js';

export interface ChaosOptions {
  durationMs: number;
  /** etcd members: 3 (elections, SIGSTOP of a leader) or 1. */
  members: number;
  seed: number;
  /** Time between faults. */
  faultEveryMs?: number;
  /** Restore every member to an older snapshot once (needs etcdctl snapshot). */
  restore?: boolean;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  seed: number;
  members: number;
  durationMs: number;
  faults: Record<string, number>;
  writes: { acknowledged: number; failed: number; mayHaveApplied: number; rewound: number };
  eventsChecked: number;
  watchSessions: number;
  quietChecks: number;
  divergences: string[];
}

interface Replica {
  store: EtcdStore;
  cache: WatchCache;
  registry: GenericStore<ServiceCIDR>;
}

interface WriteRecord {
  marker: string;
  op: 'create' | 'update' | 'delete' | 'txn';
  outcome: 'ok' | 'failed' | 'maybe';
  rv?: number;
  epoch: number;
}

interface Segment {
  watcher: number;
  epoch: number;
  fromRv: number;
  seen: Seen[];
  color?: string;
}

const NAMES = Array.from({ length: 12 }, (_, i) => `obj-${i}`);
const COLORS = ['red', 'blue'];
/**
 * No watcher stops on its own mid-stream: a client that resumes from the resourceVersion of an
 * event in a multi-key revision misses that revision's later events, by kube's contract.
 */
const WATCHERS: WatcherSpec[] = [{ slow: false }, { color: 'red', slow: false }, { slow: true }, { color: 'blue', slow: true }];
/** Codes after which a watcher resumes on the other replica (a cache re-initializing, etcd away). */
const RESUME = [429, 500, 503, 504];
const ctx = () => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? (() => {});
  const random = rng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const figures: ChaosFigures = {
    seed: o.seed,
    members: o.members,
    durationMs: o.durationMs,
    faults: {},
    writes: { acknowledged: 0, failed: 0, mayHaveApplied: 0, rewound: 0 },
    eventsChecked: 0,
    watchSessions: 0,
    quietChecks: 0,
    divergences: [],
  };
  const diverged = (what: string) => {
    figures.divergences.push(what);
    log(`DIVERGENCE: ${what}`);
  };

  const etcd: EtcdCluster = await startEtcdCluster({ size: o.members });
  const etcdPrefix = `/chaos-${process.pid}-${o.seed}`;
  const prefix = keyPrefixOf(serviceCIDRs);
  const resourceEtcdPrefix = etcdPrefix + prefix.slice('/registry'.length);
  const sentinelKey = `${etcdPrefix}/chaos-sentinel`;
  const replicas: Replica[] = [];
  const truths: TruthWatch[] = [];
  /** Per epoch: the revision history was rewound to when the epoch ended by a restore. */
  const rewoundTo: number[] = [];
  let epoch = 0;
  const writes: WriteRecord[] = [];
  const segments: Segment[] = [];
  let writeId = 0;
  let inflight = 0;
  let gate: Promise<void> | undefined;
  let openGate = () => {};
  const closeGate = () => (gate ??= new Promise<void>((resolve) => (openGate = () => ((gate = undefined), resolve()))));
  const stopAll = new AbortController();

  try {
    for (let i = 0; i < 2; i++) {
      const store = new EtcdStore({ servers: etcd.endpoints.split(','), prefix: etcdPrefix, requestTimeoutMs: 5000 });
      const cache = await WatchCache.start({ store, prefix, name: `replica-${i}`, backoff: { maxMs: 2000 } });
      replicas.push({ store, cache, registry: new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] }) });
    }
    const admin = replicas[0]!.store;
    /** Writes the sentinel (retried while etcd is away); its revision is a barrier. */
    const sentinel = async (): Promise<number> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          const res = await admin.client.kv.put({ key: Buffer.from(sentinelKey), value: Buffer.from(String(Date.now())) });
          return Number(res.header.revision);
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(200);
        }
      }
    };
    const startRv = await sentinel();
    truths.push(new TruthWatch(etcd.endpoints, etcdPrefix, resourceEtcdPrefix, sentinelKey, startRv - 1));

    // ---- writers
    const write = async (): Promise<void> => {
      const r = pick(replicas).registry;
      const name = pick(NAMES);
      const marker = `w${++writeId}`;
      const labels = { color: pick(COLORS), w: marker };
      const action = random();
      const op: WriteRecord['op'] = action < 0.4 ? 'create' : action < 0.8 ? 'update' : 'delete';
      const rec: WriteRecord = { marker, op, outcome: 'ok', epoch };
      inflight++;
      try {
        if (op === 'create') {
          const o = await r.create(ctx(), { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels }, spec: { cidrs: ['10.0.0.0/8'] } }, { fieldManager: 'chaos' });
          rec.rv = Number(o.metadata.resourceVersion);
        } else if (op === 'update') {
          const o = await r.update(ctx(), name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: undefined, labels } }), { fieldManager: 'chaos' });
          rec.rv = Number(o.object.metadata.resourceVersion);
        } else {
          await r.delete(ctx(), name, {});
        }
        figures.writes.acknowledged++;
      } catch (err) {
        if (!isStatusError(err)) {
          diverged(`write ${marker} (${op} ${name}) failed with a raw error: ${String(err)}`);
          rec.outcome = 'maybe';
        } else if (err.code === 504 || err.code === 500) {
          rec.outcome = 'maybe';
          figures.writes.mayHaveApplied++;
        } else {
          rec.outcome = 'failed';
          figures.writes.failed++;
        }
      } finally {
        inflight--;
      }
      writes.push(rec);
    };
    const writer = async (): Promise<void> => {
      while (!stopAll.signal.aborted) {
        if (gate) await gate;
        if (stopAll.signal.aborted) return;
        await write();
        await sleep(5 + random() * 20);
      }
    };

    // ---- watchers
    const watcher = async (spec: WatcherSpec, i: number): Promise<void> => {
      let on = i % 2;
      let segment: Segment | undefined;
      let lastRv = 0;
      while (!stopAll.signal.aborted) {
        if (gate) await gate;
        if (stopAll.signal.aborted) return;
        const registry = replicas[on]!.registry;
        if (!segment || segment.epoch !== epoch) {
          // Start over from a list (first time, after a 410, after a restore).
          try {
            const listed = await registry.list(ctx(), {});
            lastRv = Number(listed.resourceVersion);
            segment = { watcher: i, epoch, fromRv: lastRv, seen: [], ...(spec.color ? { color: spec.color } : {}) };
            segments.push(segment);
          } catch {
            on = 1 - on;
            await sleep(200);
            continue;
          }
        }
        figures.watchSessions++;
        const open = (resourceVersion: string, labelSelector: string | undefined, signal: AbortSignal) => registry.watch(ctx(), { resourceVersion, labelSelector }, signal);
        let result: { lastRv: number; endedWith?: number };
        try {
          result = await watchSession(open, spec, lastRv, segment.seen, stopAll.signal, [410, ...RESUME]);
        } catch (err) {
          diverged(`watcher ${i} failed: ${String(err)}`);
          segment = undefined;
          continue;
        }
        lastRv = result.lastRv;
        if (result.endedWith === 410) segment = undefined;
        if (result.endedWith && result.endedWith !== 410) await sleep(100);
        on = 1 - on; // resume on the other replica
      }
    };

    // ---- checks
    /** Each replica's cache equals etcd at the revision the cache reports. */
    const quietCheck = async (label: string): Promise<void> => {
      closeGate();
      for (let t = 0; inflight > 0 && t < 600; t++) await sleep(50);
      if (inflight > 0) log(`${label}: ${inflight} writes still in flight`);
      const barrier = await sentinel();
      log(`${label}: quiet check at revision ${barrier}`);
      for (const [i, r] of replicas.entries()) {
        let listed: Awaited<ReturnType<typeof r.registry.list>> | undefined;
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline) {
          if (r.cache.health().ready) {
            // A consistent list brings the cache up to etcd's revision (a progress request).
            await r.registry.list(ctx(), {}).catch(() => undefined);
            if (r.cache.health().revision >= barrier) {
              listed = await r.registry.list(ctx(), { resourceVersion: '0' }).catch(() => undefined);
              if (listed) break;
            }
          }
          await sleep(100);
        }
        if (!listed) {
          diverged(`${label}: replica ${i}'s cache did not reach revision ${barrier} (${JSON.stringify(r.cache.health())})`);
          continue;
        }
        const at = listed.resourceVersion;
        let raw: { kvs?: { key: string; mod_revision: number }[] };
        try {
          raw = JSON.parse(await etcdctl(etcd.endpoints, ['get', '--prefix', resourceEtcdPrefix, '--rev', at, '-w', 'json'])) as typeof raw;
        } catch (err) {
          // A cache from the future (etcd restored to an older revision), or etcd away.
          diverged(`${label}: replica ${i}'s cache at ${at} cannot be compared with etcd: ${String(err).split('\n').at(-1)}`);
          continue;
        }
        const want = (raw.kvs ?? []).map((kv) => `${Buffer.from(kv.key, 'base64').toString().slice(resourceEtcdPrefix.length)}@${kv.mod_revision}`).sort();
        const got = listed.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
        if (JSON.stringify(want) !== JSON.stringify(got)) diverged(`${label}: replica ${i}'s cache at ${at} has [${got.join(' ')}], etcd has [${want.join(' ')}]`);
      }
      figures.quietChecks++;
      openGate();
    };

    // ---- faults
    let snapshot: { file: string; revision: number } | undefined;
    let restored = false;
    const faults: Record<string, () => Promise<void>> = {
      kill: async () => {
        const m = pick(etcd.members);
        await m.kill();
        await sleep(300 + random() * 700);
        await m.start();
      },
      ...(o.members >= 3
        ? {
            pause: async () => {
              const m = pick(etcd.members);
              m.pause();
              await sleep(2500 + random() * 1500); // etcd's election timeout is 1 s
              m.unpause();
            },
          }
        : {}),
      compact: async () => {
        const current = await admin.currentRevision();
        await etcdctl(etcd.endpoints, ['compact', String(Math.max(1, current - Math.floor(random() * 10)))]).catch(() => undefined);
      },
      txn: async () => {
        const names = [pick(NAMES), pick(NAMES), pick(NAMES)].filter((n, i, a) => a.indexOf(n) === i);
        const marker = `t${++writeId}`;
        const ops = names.map((name) => {
          const obj = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, uid: `${marker}-${name}`, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), labels: { color: pick(COLORS), w: marker } }, spec: { cidrs: ['10.0.0.0/8'] } };
          // etcdctl's txn reads Go-quoted arguments: a JSON string literal is one.
          return `put ${resourceEtcdPrefix}${name} ${JSON.stringify(JSON.stringify(obj))}`;
        });
        const rec: WriteRecord = { marker, op: 'txn', outcome: 'maybe', epoch };
        try {
          const out = JSON.parse(await etcdctl(etcd.endpoints, ['txn', '-w', 'json'], `\n${ops.join('\n')}\n\n\n`)) as { header: { revision: number } };
          rec.outcome = 'ok';
          rec.rv = out.header.revision;
        } catch {
          // etcdctl's own failure: the outcome is unknown to it as well
        }
        writes.push(rec);
      },
      delPrefix: async () => {
        await etcdctl(etcd.endpoints, ['del', '--prefix', `${resourceEtcdPrefix}obj-1`]).catch(() => undefined);
      },
      restore: async () => {
        if (!snapshot || restored) return;
        restored = true;
        closeGate();
        for (let t = 0; inflight > 0 && t < 600; t++) await sleep(50);
        const barrier = await sentinel();
        await truths[epoch]!.caughtUp(barrier);
        truths[epoch]!.stop();
        rewoundTo[epoch] = snapshot.revision;
        await Promise.all(etcd.members.map((m) => m.stop()));
        for (const m of etcd.members) await m.restore(snapshot.file);
        await Promise.all(etcd.members.map((m) => m.start()));
        epoch++;
        truths.push(new TruthWatch(etcd.endpoints, etcdPrefix, resourceEtcdPrefix, sentinelKey, snapshot.revision));
        // Writers wait until both caches have noticed and re-listed.
        const rewound = snapshot.revision;
        for (let t = 0; t < 600 && !replicas.every((r) => r.cache.health().ready && r.cache.health().revision < barrier); t++) {
          await replicas[t % 2]!.store.currentRevision().catch(() => undefined);
          await sleep(100);
        }
        if (!replicas.every((r) => r.cache.health().revision < barrier)) diverged(`after the restore to ${rewound} a cache still serves revision ${replicas.map((r) => r.cache.health().revision).join('/')}`);
        openGate();
      },
    };

    const workers = [writer(), writer(), ...WATCHERS.map((s, i) => watcher(s, i))];
    const every = o.faultEveryMs ?? 3000;
    const deadline = Date.now() + o.durationMs;
    const kinds = Object.keys(faults).filter((k) => k !== 'restore' || o.restore);
    let count = 0;
    while (Date.now() < deadline) {
      await sleep(every * (0.5 + random()));
      if (Date.now() >= deadline) break;
      if (!snapshot && count >= 1 && o.restore) {
        const file = `${etcd.members[0]!.dataDir}.snap-${o.seed}.db`;
        await etcdctl(etcd.members[0]!.clientUrl, ['snapshot', 'save', file]).catch(() => undefined);
        const status = JSON.parse(await etcdctl(etcd.members[0]!.clientUrl, ['snapshot', 'status', file, '-w', 'json']).catch(() => '{}')) as { revision?: number };
        if (status.revision) snapshot = { file, revision: status.revision };
      }
      // The restore comes once, in the second half of the run (history to rewind by then).
      const kind = snapshot && !restored && o.restore && Date.now() > deadline - o.durationMs / 2 ? 'restore' : pick(kinds.filter((k) => k !== 'restore'));
      log(`fault ${++count}: ${kind}`);
      await faults[kind]!();
      figures.faults[kind] = (figures.faults[kind] ?? 0) + 1;
      if (count % 4 === 0) await quietCheck(`after fault ${count}`);
    }

    // ---- the end: one more quiet check, watchers catch up with the truth, then compare
    await quietCheck('at the end');
    closeGate();
    for (let t = 0; inflight > 0 && t < 600; t++) await sleep(50);
    const endRv = await sentinel();
    if (!(await truths[epoch]!.caughtUp(endRv))) diverged(`the truth (etcdctl watch) did not reach ${endRv}`);
    const wantFor = (s: Segment): Seen[] => expectedEvents(truths[s.epoch]!.changes, s.fromRv, s.color);
    /** Each watcher's last segment, if it is in the last epoch: it must end up complete. */
    const live = (s: Segment) => s.epoch === epoch && segments.filter((x) => x.watcher === s.watcher).at(-1) === s;
    for (let t = 0; t < 600 && segments.some((s) => live(s) && s.seen.length < wantFor(s).length); t++) await sleep(50);
    stopAll.abort();
    openGate();
    await Promise.all(workers);

    for (const s of segments) {
      const want = wantFor(s);
      const last = s.seen.at(-1)?.rv ?? s.fromRv;
      // A segment that ended (410, restore) must match up to its last event; the live one entirely.
      const upTo = live(s) ? Infinity : last;
      const expected = want.filter((e) => e.rv <= upTo);
      figures.eventsChecked += s.seen.length;
      if (JSON.stringify(s.seen) !== JSON.stringify(expected)) {
        const i = s.seen.findIndex((e, k) => JSON.stringify(e) !== JSON.stringify(expected[k]));
        diverged(`watcher ${s.watcher}'s watch from ${s.fromRv} (epoch ${s.epoch}, color ${s.color ?? 'any'}) differs at event ${i}: saw ${JSON.stringify(s.seen.slice(Math.max(0, i - 1), i + 2))}, want ${JSON.stringify(expected.slice(Math.max(0, i - 1), i + 2))}`);
      }
    }

    const applied = truths.map((t) => {
      const m = new Map<string, TruthChange>();
      for (const c of t.changes) if (c.marker && !m.has(c.marker)) m.set(c.marker, c);
      return m;
    });
    for (const w of writes) {
      if (w.op === 'delete') continue;
      const found = applied.find((m) => m.has(w.marker))?.get(w.marker);
      if (w.outcome === 'ok') {
        const rewind = rewoundTo[w.epoch];
        if (rewind !== undefined && (w.rv ?? 0) > rewind) {
          figures.writes.rewound++;
          continue;
        }
        if (!applied[w.epoch]!.has(w.marker)) diverged(`acknowledged write ${w.marker} (${w.op}, revision ${w.rv}) is not in etcd's history`);
        else if (found && found.rv !== w.rv) diverged(`acknowledged write ${w.marker} answered revision ${w.rv}, etcd has it at ${found.rv}`);
      } else if (w.outcome === 'failed' && found) {
        diverged(`write ${w.marker} (${w.op}) was answered as failed but etcd applied it at ${found.rv}`);
      }
    }
    return figures;
  } finally {
    stopAll.abort();
    openGate();
    for (const t of truths) t.stop();
    for (const r of replicas) {
      await r.cache.close();
      await r.store.close();
    }
    await etcd.stop();
  }
}
