// metadata.managedFields <-> the ownership table server-side apply works on: one entry per
// manager identity (manager, operation, subresource, and apiVersion for updates), each with the
// set of fields it owns and when it last changed the object.

import { rfc3339Now, type ManagedFieldsEntry } from '../object-meta.js';
import { textOf } from '../json-value.js';
import { FieldSet } from './field-set.js';

export type Operation = 'Apply' | 'Update';

export interface Ownership {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  /** RFC 3339 (seconds); absent when the manager never changed the object. */
  time?: string;
  set: FieldSet;
}

/** Identity → ownership. */
export type OwnershipTable = Map<string, Ownership>;

/** kube's manager identifier: the entry minus fields, time and (for appliers) apiVersion, as JSON. */
export function managerIdentifier(o: Pick<Ownership, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: Record<string, string> = {};
  if (o.manager) id.manager = o.manager;
  id.operation = o.operation;
  if (o.operation === 'Update' && o.apiVersion) id.apiVersion = o.apiVersion;
  if (o.subresource) id.subresource = o.subresource;
  return JSON.stringify(id);
}

export class ManagedFieldsDecodeError extends Error {
  override name = 'ManagedFieldsDecodeError';
}

/** Decodes entries; throws ManagedFieldsDecodeError on any malformed entry (callers fall back). */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): OwnershipTable {
  const table: OwnershipTable = new Map();
  if (entries !== undefined && !Array.isArray(entries)) throw new ManagedFieldsDecodeError('managedFields must be a list');
  (entries ?? []).forEach((e, i) => {
    if (typeof e !== 'object' || e === null) throw new ManagedFieldsDecodeError(`managed fields entry ${i} is not an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (!e.fieldsType) throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsDecodeError(`invalid fieldsType "${textOf(e.fieldsType)}" in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsDecodeError(`error decoding versioned set from ${JSON.stringify(e)}: ${(err as Error).message}`);
    }
    const o: Ownership = { manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource ?? '', set };
    const time = normalizeTime(e.time);
    if (time) o.time = time;
    table.set(managerIdentifier(o), o);
  });
  return table;
}

/**
 * Recent answers of normalizeTime: every write decodes every entry's time, and the same few
 * times recur (an object's entries, a second's worth of writes). Cleared when full.
 */
const normalizedTimes = new Map<string, string | undefined>();
const NORMALIZED_TIMES_MAX = 1024;

/** Times come back from some clients with milliseconds; kube keeps seconds. */
function normalizeTime(time: string | undefined): string | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent, a missing time then parses as NaN: undefined all the same
  if (!time) return undefined;
  // Stryker disable next-line ConditionalExpression: equivalent, a cache miss computes the same answer again
  if (normalizedTimes.has(time)) return normalizedTimes.get(time);
  const ms = Date.parse(time);
  const out = Number.isNaN(ms) ? undefined : rfc3339Now(new Date(ms));
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, when the cache is cleared bounds its memory, never an answer
  if (normalizedTimes.size >= NORMALIZED_TIMES_MAX) normalizedTimes.clear();
  normalizedTimes.set(time, out);
  return out;
}

/** An entry's time for ordering, none first; times are whole seconds (normalizeTime, rfc3339Now), as kube compares them. */
const instant = (t: string | undefined): number => (t ? Date.parse(t) : 0);

/** Entries in kube's order (Apply before Update, then by time, manager, apiVersion, subresource). */
export function encodeManagedFields(table: OwnershipTable): ManagedFieldsEntry[] {
  const owners = [...table.values()].filter((o) => !o.set.isEmpty());
  owners.sort(
    (p, q) =>
      cmp(p.operation, q.operation) || instant(p.time) - instant(q.time) || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource, q.subresource),
  );
  return owners.map((o) => {
    const e: ManagedFieldsEntry = {};
    if (o.manager) e.manager = o.manager;
    e.operation = o.operation;
    e.apiVersion = o.apiVersion;
    if (o.time) e.time = o.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = o.set.toFieldsV1();
    if (o.subresource) e.subresource = o.subresource;
    return e;
  });
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `managedFields: []` or `[{}]` in a request asks for the table to be reset. */
export function isResetRequest(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && typeof entries[0] === 'object' && entries[0] !== null && Object.keys(entries[0]).length === 0;
}

export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/** More than ten Update managers: the oldest are folded into one "ancient-changes" entry per apiVersion. */
export function capUpdateManagers(table: OwnershipTable): void {
  const updaters = [...table.entries()].filter(([, o]) => o.operation === 'Update').map(([id, o]) => ({ id, o, at: instant(o.time) }));
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort((a, b) => a.at - b.at || cmp(a.id, b.id));
  let count = updaters.length;
  const firstOfVersion = new Map<string, string>();
  for (const { id, o } of updaters) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const bucketId = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: o.apiVersion, subresource: '' });
    const first = firstOfVersion.get(o.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(o.apiVersion, id);
      continue;
    }
    let bucket = table.get(bucketId);
    if (!bucket) {
      const firstOwner = table.get(first)!;
      table.delete(first);
      // Its own set, grown in place below: a union per manager folded in copied the growing set each time.
      bucket = { ...firstOwner, manager: ANCIENT_CHANGES, subresource: '', set: firstOwner.set.clone() };
      table.set(bucketId, bucket);
    }
    bucket.set.addAll(o.set);
    // The bucket takes the time of the update folded in last, none when it has none (as kube does).
    if (o.time) bucket.time = o.time;
    else delete bucket.time;
    table.delete(id);
    count--;
  }
}
