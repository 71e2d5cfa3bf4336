// The digest of a store's contents: SHA-256 over every live object, in key byte order (SQLite's
// BINARY order on UTF-8 keys is etcd's), each as its key and its stored bytes, length-prefixed.
// Revisions are left out on purpose: a restore bumps them and a migration renumbers them, while
// what is served stays the same. So one digest compares a snapshot, the store restored from it,
// and both sides of a migration (SQLite or etcd), each computed independently.

import { createHash, type Hash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { liveRowsSql } from './sqlite-schema.js';

export class ContentDigest {
  private readonly hash: Hash = createHash('sha256');
  private readonly length = Buffer.alloc(4);
  /** Objects added. */
  count = 0;

  /** Adds one object; callers add them in key byte order. */
  add(key: string, value: Uint8Array): void {
    const k = Buffer.from(key, 'utf8');
    this.length.writeUInt32BE(k.byteLength);
    this.hash.update(this.length);
    this.hash.update(k);
    this.length.writeUInt32BE(value.byteLength);
    this.hash.update(this.length);
    this.hash.update(value);
    this.count++;
  }

  /** The digest as lower-case hex (ends the digest). */
  hex(): string {
    return this.hash.digest('hex');
  }
}

/** The content digest of the live objects in a SQLite store or snapshot of either schema (`db` names an attached one). */
export function digestStore(conn: Database.Database, schemaVersion: number, db = 'main'): { sha256: string; objects: number } {
  const digest = new ContentDigest();
  const rows = conn.prepare<[], { key: string; value: Buffer }>(`SELECT key, value FROM (${liveRowsSql(schemaVersion, db)}) ORDER BY key`);
  for (const r of rows.iterate()) digest.add(r.key, r.value);
  return { objects: digest.count, sha256: digest.hex() };
}
