// A large store made fast, for the benchmarks and tests that need one (`npm run bench --
// startup` and `-- store` at 100,000 objects, the kill -9 tests): ServiceCIDRs exactly as the server and its
// controllers leave them (finalizer, Ready=True, managedFields of kubectl's apply and both
// controllers), padded by an annotation to about `bytes` of JSON each, written through the
// SQLite store itself (the writer thread, 500 per batch) rather than 100,000 HTTPS creates. A
// server started on it finds nothing to do: its controllers write nothing.

import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

export const SERVICE_CIDR_KEY = '/registry/networking.platform.io/servicecidrs/';
const FINALIZER = 'networking.platform.io/service-cidr-finalizer';
const READY_MESSAGE = 'Kubernetes Service CIDR is ready';

/** A distinct /28 for each i below 2^20, inside 10.0.0.0/8. */
const cidrOf = (i: number): string => `10.${(i >> 12) & 255}.${(i >> 4) & 255}.${(i & 15) << 4}/28`;

/** The stored JSON of ServiceCIDR number `i`, about `bytes` long. */
export function serviceCidrJson(i: number, bytes: number, at = '2026-01-01T00:00:00Z'): string {
  const name = `large-${String(i).padStart(7, '0')}`;
  const obj = {
    apiVersion: 'networking.platform.io/v1',
    kind: 'ServiceCIDR',
    metadata: {
      name,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: at,
      labels: { app: 'large-store', shard: String(i % 16) },
      annotations: { note: '' },
      finalizers: [FINALIZER],
      managedFields: [
        { manager: 'kubectl', operation: 'Apply', apiVersion: 'networking.platform.io/v1', time: at, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} }, 'f:labels': { 'f:app': {}, 'f:shard': {} } }, 'f:spec': { 'f:cidrs': {} } } },
        {
          manager: 'service-cidr-controller',
          operation: 'Apply',
          apiVersion: 'networking.platform.io/v1',
          time: at,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } } },
          subresource: 'status',
        },
        { manager: 'service-cidr-controller', operation: 'Update', apiVersion: 'networking.platform.io/v1', time: at, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {}, [`v:"${FINALIZER}"`]: {} } } } },
      ],
    },
    spec: { cidrs: [cidrOf(i)] },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at, reason: '', message: READY_MESSAGE }] },
  };
  const bare = JSON.stringify(obj).length;
  obj.metadata.annotations.note = 'x'.repeat(Math.max(0, bytes - bare));
  return JSON.stringify(obj);
}

/** Adds `count` ServiceCIDRs (numbered from `from`) to the store in `dataDir`; returns the JSON bytes written. */
export async function fillServiceCidrs(dataDir: string, count: number, bytes: number, from = 0): Promise<number> {
  const store = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  let total = 0;
  try {
    for (let i = from; i < from + count; i += 500) {
      const n = Math.min(500, from + count - i);
      await Promise.all(
        Array.from({ length: n }, (_, j) => {
          const value = Buffer.from(serviceCidrJson(i + j, bytes));
          total += value.byteLength;
          return store.optimisticPut(`${SERVICE_CIDR_KEY}large-${String(i + j).padStart(7, '0')}`, value, 0);
        }),
      );
    }
  } finally {
    await store.close();
  }
  return total;
}

/**
 * The same objects in a data dir of the schema-1 layout, as servers before schema 2 wrote it
 * (each value in the log and again in `current`, 4 KiB pages), written directly: what a server
 * of this version finds after an upgrade. Returns the JSON bytes written.
 */
export function fillSchemaOneStore(dataDir: string, count: number, bytes: number): number {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'state.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.exec(`
      CREATE TABLE log (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, value BLOB, create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX log_key_revision ON log (key, revision);
      CREATE TABLE current (key TEXT PRIMARY KEY, revision INTEGER NOT NULL, create_revision INTEGER NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;
      CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO meta (name, value) VALUES ('schema_version', 1), ('compacted', 0);
    `);
    const log = db.prepare('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, 0, 0)');
    const cur = db.prepare('INSERT INTO current (key, revision, create_revision, value) VALUES (?, ?, ?, ?)');
    let total = 0;
    for (let i = 0; i < count; i += 1000) {
      db.transaction(() => {
        for (let j = i; j < Math.min(count, i + 1000); j++) {
          const key = `${SERVICE_CIDR_KEY}large-${String(j).padStart(7, '0')}`;
          const value = Buffer.from(serviceCidrJson(j, bytes));
          total += value.byteLength;
          log.run(j + 2, key, value, j + 2);
          cur.run(key, j + 2, j + 2, value);
        }
      })();
    }
    return total;
  } finally {
    db.close();
  }
}
