// The SQLite store's reads, on the main thread's connection: the live value of a key or a range
// (the `current` table and the log row it names), the same as of a revision (the log), the live count
// corrected to a revision, and pages of the log as change events for watchers. The store chooses
// the revision: the one it has published, never one the writer thread has not yet reported.

import type Database from 'better-sqlite3';
import { prefixEnd } from './sqlite-schema.js';
import type { KeyValue } from '../revisioned-store.js';
import type { ChangeEvent } from '../watch-hub.js';

interface Row {
  key: string;
  revision: number;
  create_revision: number;
  value: Buffer;
}
interface LogRow extends Row {
  prev_revision: number;
  deleted: number;
}

const LOG_COLUMNS = 'key, revision, create_revision, value, prev_revision, deleted';
/** Live rows: `current` joined with the log row of each key's latest revision (which holds the value). */
const LIVE = 'SELECT c.key AS key, c.revision AS revision, c.create_revision AS create_revision, l.value AS value FROM current AS c JOIN log AS l ON l.revision = c.revision';
const toKv = (r: Row): KeyValue => ({ key: r.key, value: r.value, createRevision: r.create_revision, modRevision: r.revision });

export class SqliteReads {
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    // A range has ONE lower bound in each query (`key >= prefix` or `key > after`, whichever is
    // higher, chosen in list()): given both, SQLite seeks by one and filters by the other, and a
    // page deep into a large prefix then scanned every key before it (100,000 keys: 17 s).
    const atRevision = (lower: '>=' | '>') => `
      SELECT ${LOG_COLUMNS} FROM log AS l
      WHERE key ${lower} ? AND key < ?
        AND revision = (SELECT MAX(revision) FROM log WHERE key = l.key AND revision <= ?)
        AND deleted = 0`;
    this.stmt = {
      meta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
      current: db.prepare<[string], Row>(`${LIVE} WHERE c.key = ?`),
      atRevision: db.prepare<[string, number], LogRow>(`SELECT ${LOG_COLUMNS} FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1`),
      listCurrentFrom: db.prepare<[string, string, number], Row>(`${LIVE} WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?`),
      listCurrentAfter: db.prepare<[string, string, number], Row>(`${LIVE} WHERE c.key > ? AND c.key < ? ORDER BY c.key LIMIT ?`),
      listAtFrom: db.prepare<[string, string, number, number], LogRow>(`${atRevision('>=')} ORDER BY key LIMIT ?`),
      listAtAfter: db.prepare<[string, string, number, number], LogRow>(`${atRevision('>')} ORDER BY key LIMIT ?`),
      count: db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM current WHERE key >= ? AND key < ?'),
      countCurrentAfter: db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM current WHERE key > ? AND key < ?'),
      countAtAfter: db.prepare<[string, string, number], { n: number }>(`SELECT COUNT(*) AS n FROM (${atRevision('>')})`),
      unpublished: db.prepare<[number, string, string], { deleted: number; prev_revision: number }>(
        'SELECT deleted, prev_revision FROM log WHERE revision > ? AND key >= ? AND key < ?',
      ),
      history: db.prepare<[string, string, number, number, number], LogRow>(
        `SELECT ${LOG_COLUMNS} FROM log WHERE key >= ? AND key < ? AND revision > ? AND revision <= ? ORDER BY revision LIMIT ?`,
      ),
      since: db.prepare<[number], LogRow>(`SELECT ${LOG_COLUMNS} FROM log WHERE revision > ? ORDER BY revision`),
      byRevision: db.prepare<[number], LogRow>(`SELECT ${LOG_COLUMNS} FROM log WHERE revision = ?`),
    };
  }

  /** The compacted revision as stored. */
  compacted(): number {
    return this.stmt.meta.get('compacted')!.value;
  }

  /** The live value (valid only when nothing committed is unpublished). */
  latest(key: string): KeyValue | undefined {
    const row = this.stmt.current.get(key);
    return row && toKv(row);
  }

  at(key: string, revision: number): KeyValue | undefined {
    const row = this.stmt.atRevision.get(key, revision);
    return row && !row.deleted ? toKv(row) : undefined;
  }

  /** Keys under `prefix` after `after`, at most `fetch` (-1: all), live or as of `revision`. */
  list(prefix: string, after: string, fetch: number, revision: number | undefined): KeyValue[] {
    const end = prefixEnd(prefix);
    const past = after >= prefix;
    let rows: Row[];
    if (revision === undefined) rows = past ? this.stmt.listCurrentAfter.all(after, end, fetch) : this.stmt.listCurrentFrom.all(prefix, end, fetch);
    else rows = past ? this.stmt.listAtAfter.all(after, end, revision, fetch) : this.stmt.listAtFrom.all(prefix, end, revision, fetch);
    return rows.map(toKv);
  }

  /** Keys under `prefix` after `after`, live or as of `revision` (the rest of a list page). */
  countAfter(prefix: string, after: string, revision: number | undefined): number {
    const end = prefixEnd(prefix);
    // `after` is a key of the page just read: inside the prefix.
    return (revision === undefined ? this.stmt.countCurrentAfter.get(after, end) : this.stmt.countAtAfter.get(after, end, revision))!.n;
  }

  /** Live keys under `prefix`; as of `revision`: less creations and plus deletions after it, in one snapshot. */
  count(prefix: string, revision: number | undefined): number {
    const end = prefixEnd(prefix);
    if (revision === undefined) return this.stmt.count.get(prefix, end)!.n;
    return this.db.transaction(() => {
      let n = this.stmt.count.get(prefix, end)!.n;
      for (const r of this.stmt.unpublished.iterate(revision, prefix, end)) n += r.deleted ? 1 : r.prev_revision === 0 ? -1 : 0;
      return n;
    })();
  }

  /** Changes under `prefix` with after < revision <= upTo, oldest first, at most `limit` (-1: all). */
  history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
    return this.stmt.history.all(prefix, prefixEnd(prefix), after, upTo, limit).map((r) => this.eventOf(r));
  }

  /** Every change after `revision`, oldest first (what a dead writer thread left unreported: little). */
  since(revision: number): ChangeEvent[] {
    return this.stmt.since.all(revision).map((r) => this.eventOf(r));
  }

  private eventOf(r: LogRow): ChangeEvent {
    const prev = r.prev_revision ? this.stmt.byRevision.get(r.prev_revision) : undefined;
    const prevKv = prev && !prev.deleted ? toKv(prev) : undefined;
    if (r.deleted) return { type: 'delete', revision: r.revision, key: r.key, prevKv: prevKv ?? { key: r.key, value: new Uint8Array(), createRevision: r.create_revision, modRevision: r.prev_revision } };
    return prevKv ? { type: 'put', revision: r.revision, kv: toKv(r), prevKv } : { type: 'put', revision: r.revision, kv: toKv(r) };
  }
}
