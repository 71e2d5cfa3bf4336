// `npm run bench -- migrate` (and `-- snapshot`): the migration rate, SQLite → etcd (objects/s,
// the whole command: consistent read, guarded batched puts, the verifying read-back and the
// compaction; without and with advancing etcd's revision past the source's first) beside raw etcd
// puts of the same keys and values through the same etcd3 client on the same etcd in the same
// run (single-key puts, 64 in flight); and the way back, etcd → SQLite.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { migrateFromEtcd } from '../../src/cli/migrate/from-etcd.js';
import { migrateToEtcd } from '../../src/cli/migrate/to-etcd.js';
import { createSqliteImport } from '../../src/storage/sqlite/sqlite-import.js';
import { startEtcdCluster } from '../../test/support/etcd-process.js';

export interface MigrateBenchResult {
  objects: number;
  valueBytes: number;
  /** The source store's revision (what etcd's is advanced past). */
  sourceRevision: number;
  /** The copy alone (--no-advance-revision). */
  copyPerSecond: number;
  /** The command as it runs by default (etcd's revision advanced first). */
  toEtcdPerSecond: number;
  rawPutsPerSecond: number;
  fromEtcdPerSecond: number;
}

/** A ServiceCIDR as the server stores it (about 1 KB with its managedFields). */
function storedObject(i: number): Buffer {
  const now = '2026-01-01T00:00:00Z';
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'networking.platform.io/v1',
      kind: 'ServiceCIDR',
      metadata: {
        name: `range-${i}`,
        uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        generation: 1,
        creationTimestamp: now,
        labels: { bench: 'migrate', n: String(i) },
        finalizers: ['networking.platform.io/service-cidr-finalizer'],
        managedFields: [
          { manager: 'kubectl', operation: 'Apply', apiVersion: 'networking.platform.io/v1', time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:bench': {}, 'f:n': {} } }, 'f:spec': { 'f:cidrs': {} } } },
          { manager: 'service-cidr-controller', operation: 'Update', apiVersion: 'networking.platform.io/v1', time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"networking.platform.io/service-cidr-finalizer"': {} } } } },
        ],
      },
      spec: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`] },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now, reason: '', message: 'Kubernetes Service CIDR is ready' }] },
    }),
  );
}

const KEY = (i: number): string => `/registry/networking.platform.io/servicecidrs/range-${i}`;

export async function benchMigrate(objects = Number(process.env.BENCH_MIGRATE_OBJECTS ?? 10_000)): Promise<MigrateBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-migrate-'));
  const etcd = await startEtcdCluster();
  const client = new Etcd3({ hosts: etcd.endpoints.split(',') });
  try {
    // The source: a store in our format, written directly (the bench measures the migration, not the load).
    const source = join(dir, 'source');
    mkdirSync(source);
    const load = createSqliteImport(join(source, 'state.db'), 1);
    let valueBytes = 0;
    for (let i = 0; i < objects; i += 500) {
      const page = [];
      for (let j = i; j < Math.min(objects, i + 500); j++) {
        const value = storedObject(j);
        valueBytes += value.byteLength;
        page.push({ key: KEY(j), value });
      }
      load.add(page);
    }
    load.finish();

    const servers = etcd.endpoints.split(',');
    // The copy alone first (etcd's revision not advanced), then the command as it runs by default:
    // etcd's revision first advanced past the source's (here about one write per object).
    const copy = await migrateToEtcd({ dataDir: source, target: { servers, prefix: '/bench-copied' }, advanceRevision: false });
    const to = await migrateToEtcd({ dataDir: source, target: { servers, prefix: '/bench-migrated' } });

    // Raw puts of the same keys and values, same client library, same etcd, 64 in flight.
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let i = next++; i < objects; i = next++) await client.put(`/bench-raw${KEY(i).slice('/registry'.length)}`).value(storedObject(i));
      }),
    );
    const rawSeconds = (performance.now() - t0) / 1000;

    const from = await migrateFromEtcd({ source: { servers, prefix: '/bench-migrated' }, dataDir: join(dir, 'back') });
    return { objects, valueBytes, sourceRevision: to.sourceRevision, copyPerSecond: copy.objects / copy.seconds, toEtcdPerSecond: to.objects / to.seconds, rawPutsPerSecond: objects / rawSeconds, fromEtcdPerSecond: from.objects / from.seconds };
  } finally {
    client.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function migrateReport(r: MigrateBenchResult): string {
  return (
    `migration of ${r.objects} objects (${(r.valueBytes / r.objects).toFixed(0)} B each): SQLite → etcd, the copy (read at one revision, guarded batched puts, verified read-back, compaction) ` +
    `${r.copyPerSecond.toFixed(0)} objects/s vs raw etcd puts through the same client (64 in flight) ${r.rawPutsPerSecond.toFixed(0)}/s: ratio ${(r.copyPerSecond / r.rawPutsPerSecond).toFixed(2)}×; ` +
    `with etcd's revision first advanced past the source's ${r.sourceRevision} (the default) ${r.toEtcdPerSecond.toFixed(0)} objects/s (ratio ${(r.toEtcdPerSecond / r.rawPutsPerSecond).toFixed(2)}×); ` +
    `etcd → SQLite ${r.fromEtcdPerSecond.toFixed(0)} objects/s (paged read at one revision, verified)`
  );
}
