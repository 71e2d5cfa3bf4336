// Randomized watch checker: concurrent writers, many watchers (some slow, some restarting from
// their last resourceVersion, some with label selectors), a full stop and reopen of the SQLite
// store in the middle, and later the watch cache's store watch broken under load (as a networked
// store's stream breaks), from which the cache recovers by itself. At the end every watcher's events must equal what the store's
// history says it should have seen for its filter: same order, no gap, no duplicate.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { FaultInjectingStore } from '../support/storage/fault-injecting-store.js';
import { expectedEvents, rng, WATCHER_SPECS, randomWrite, replayHistory, watchSession, type Seen } from '../support/watch-history.js';

const ctx = () => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);

test('randomized writers and watchers, across a store restart, see exactly the history', { timeout: 120_000 }, async () => {
  const seed = Number(process.env.WATCH_CHECKER_SEED ?? Date.now() % 100000);
  const random = rng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'watch-checker-'));
  const path = join(dir, 'state.db');
  const prefix = keyPrefixOf(serviceCIDRs);
  const open = async () => {
    const store = openSqliteStore({ path });
    const faults = new FaultInjectingStore(store);
    const cache = await WatchCache.start({ store: faults, prefix, backoff: { initialMs: 5, maxMs: 50 } });
    const registry = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });
    return { store, faults, cache, registry };
  };
  let server = await open();
  // A write outside the prefix, so that watches start from a real revision (0 would mean "with the initial state").
  const startRv = (await server.store.optimisticPut('/registry/seed', new Uint8Array([1]), 0)).revision;

  // Watchers: a label filter or none, slow or not, restarting every n events or not.
  const specs = WATCHER_SPECS;
  const seen: Seen[][] = specs.map(() => []);
  const stopAll = new AbortController();
  let restarted: Promise<void> = Promise.resolve();

  const runWatcher = async (i: number): Promise<void> => {
    const spec = specs[i]!;
    let lastRv = startRv;
    while (!stopAll.signal.aborted) {
      await restarted;
      // A store being closed under the watch is the restart, and a watch cache re-initializing
      // after its store watch broke answers 429 (retry); anything else is a real failure.
      const open = (resourceVersion: string, labelSelector: string | undefined, signal: AbortSignal) => server.registry.watch(ctx(), { resourceVersion, labelSelector }, signal);
      const session = await watchSession(open, spec, lastRv, seen[i]!, stopAll.signal, [503, 429]);
      lastRv = session.lastRv;
      if (session.endedWith === 429) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 1));
    }
  };

  const write = async (): Promise<void> => {
    await randomWrite(server.registry, random, [404, 409]);
  };
  const writers = (rounds: number) =>
    Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let k = 0; k < rounds; k++) await write();
      }),
    );

  const watchers = specs.map((_, i) => runWatcher(i));
  await writers(60);

  // Restart: close the cache and the store, reopen the file; watchers resume from their last resourceVersion.
  let reopened!: () => void;
  restarted = new Promise((r) => (reopened = r));
  await server.cache.close();
  await server.store.close();
  server = await open();
  reopened();
  await writers(30);
  // The cache's store watch breaks twice while writers run; clients' watches end and resume.
  await Promise.all([
    writers(30),
    (async () => {
      for (let k = 0; k < 2; k++) {
        await new Promise((r) => setTimeout(r, 15));
        server.faults.breakWatches('Unavailable');
      }
    })(),
  ]);
  const endRv = await server.store.currentRevision();

  // Ground truth: the store's own log, replayed.
  const changes = await replayHistory(server.store, prefix, startRv, endRv, 10_000);
  const wants = specs.map((spec) => expectedEvents(changes, startRv, spec.color));
  for (let t = 0; t < 400 && seen.some((s, i) => s.length < wants[i]!.length); t++) await new Promise((r) => setTimeout(r, 25));
  stopAll.abort();
  await Promise.all(watchers);
  const recoveries = server.cache.health().generation - 1;
  await server.cache.close();
  await server.store.close();
  rmSync(dir, { recursive: true, force: true });

  assert.ok(changes.length > 100, `enough traffic (${changes.length} changes, seed ${seed})`);
  assert.ok(recoveries >= 1, 'the watch cache lost its store watch and recovered');
  specs.forEach((spec, i) => assert.deepEqual(seen[i], wants[i], `watcher ${i} (${JSON.stringify(spec)}) diverged; seed ${seed}`));
});
