// Field ownership for one endpoint (a kind's main resource or its /status), as kube-apiserver's
// field manager keeps it: every create, update and patch records what its manager changed
// (operation Update); server-side apply merges a configuration, takes ownership of exactly the
// fields it sets, removes fields it stopped setting that no one else owns, and refuses (409) to
// change fields other managers own unless forced.

import type { KubeObject, ManagedFieldsEntry } from '../object-meta.js';
import { rfc3339Now } from '../object-meta.js';
import type { Schema, SchemaRegistry } from '../schema.js';
import { deepEqual, type JsonMap } from '../json-value.js';
import { badRequest } from '../status-error.js';
import { decodeTyped } from '../typed-decode.js';
import { applyConflictError, type FieldConflict } from './conflict-error.js';
import { FieldSet, type FieldPathElements } from './field-set.js';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, isResetRequest, managerIdentifier, type Ownership, type OwnershipTable } from './managed-fields-codec.js';
import { applyConfigErrors, compare, merge, removeFields, toFieldSet } from './typed-ops.js';
import { TypedSchema, type TypeNode } from './typed-schema.js';
import { allowedConflictsFromLastApplied, syncLastApplied } from './last-applied.js';

export interface FieldManagerOptions {
  group: string;
  version: string;
  kind: string;
  /** The kind's schema and the registry its references resolve in. */
  schema: Schema;
  registry: SchemaRegistry;
  /** '' for the main resource, 'status' for the status subresource. */
  subresource: string;
  /** Top-level fields this endpoint resets (its strategy ignores them): never owned through it. */
  resetFields: readonly string[];
  /** The kind's zero value as kube serializes it (what a create is compared against). */
  emptyObject(): JsonMap;
  now?: () => Date;
}

/** Fields no manager owns (kube's stripMeta): type and system metadata. */
const SYSTEM_FIELDS = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', `f:${f}`]),
);

/** What a write changed, as fields its manager may own, and what it removed. */
interface Changes {
  changed: FieldSet;
  removed: FieldSet;
}

export class FieldManager {
  private readonly root: TypeNode;
  private readonly apiVersion: string;
  private readonly reset: FieldSet;
  private readonly now: () => Date;
  /** The zero value's top-level members (apiVersion and kind among them, which no one owns). */
  private readonly zeroStructs: [string, unknown][];

  constructor(private readonly opts: FieldManagerOptions) {
    this.zeroStructs = Object.entries(opts.emptyObject());
    this.root = new TypedSchema(opts.registry).typeOf(opts.schema);
    this.apiVersion = opts.group ? `${opts.group}/${opts.version}` : opts.version;
    this.reset = FieldSet.of(...opts.resetFields.map((f) => [`f:${f}`]));
    this.now = opts.now ?? (() => new Date());
  }

  /** The fields a set of changes may own through this endpoint. */
  private ownable(set: FieldSet): FieldSet {
    return set.withoutPrefixes(this.reset).difference(SYSTEM_FIELDS);
  }

  /**
   * Compares as kube compares typed Go objects, whose non-pointer structs (spec, status) are
   * always present: an absent top-level struct counts as its zero value.
   */
  private diff(live: JsonMap, next: JsonMap): Changes {
    const c = compare(this.withZeroStructs(live), this.withZeroStructs(next), this.root);
    // ownable() filters path by path, so it is applied once to the union.
    return { changed: this.ownable(c.modified.union(c.added)), removed: this.ownable(c.removed) };
  }

  private withZeroStructs(obj: JsonMap): JsonMap {
    let out = obj;
    for (const [k, v] of this.zeroStructs) {
      if (out[k] !== undefined) continue;
      if (out === obj) out = { ...obj };
      out[k] = v;
    }
    return out;
  }

  /**
   * Records a create/update/patch by `manager` into `next.metadata.managedFields`
   * (`live` undefined: a create). Never fails: a malformed table in the request falls back to live's.
   */
  recordUpdate(live: KubeObject | undefined, next: KubeObject, manager: string): void {
    const liveObj = live ?? (this.opts.emptyObject() as unknown as KubeObject);
    const table = this.tableForUpdate(liveObj, next);
    const c = this.diff(withoutManagedFields(liveObj), withoutManagedFields(next));
    const changed = c.changed;
    for (const o of table.values()) o.set = o.set.difference(changed).difference(c.removed);
    if (!changed.isEmpty()) {
      const self: Ownership = { manager, operation: 'Update', apiVersion: this.apiVersion, subresource: this.opts.subresource, set: changed };
      const id = managerIdentifier(self);
      const previous = table.get(id);
      if (previous) self.set = previous.set.union(changed);
      self.time = rfc3339Now(this.now());
      table.set(id, self);
    }
    this.store(next, table);
  }

  /** kube's choice of the table an update starts from: the request's (if it set one), else live's. */
  private tableForUpdate(live: KubeObject, next: KubeObject): OwnershipTable {
    const requested = next.metadata?.managedFields;
    if (!this.opts.subresource) {
      if (isResetRequest(requested)) return new Map();
      try {
        const table = decodeManagedFields(requested);
        if (table.size > 0) return table;
      } catch {
        // A table that cannot be decoded (ManagedFieldsDecodeError): live's stands.
      }
    }
    return liveTable(live);
  }

  /**
   * Server-side apply of `config` by `manager` over `live` (undefined: the object does not exist
   * yet). Returns the object to store, managedFields included; throws 400 on a malformed
   * configuration and 409 on conflicts unless `force`.
   */
  apply(live: KubeObject | undefined, config: JsonMap, manager: string, force: boolean): KubeObject {
    this.checkConfig(config);
    const liveObj = live ?? (this.opts.emptyObject() as unknown as KubeObject);
    const table = liveTable(liveObj);
    const liveValue = withoutManagedFields(liveObj);
    const self: Ownership = { manager, operation: 'Apply', apiVersion: this.apiVersion, subresource: this.opts.subresource, set: this.ownable(toFieldSet(config, this.root)) };
    const id = managerIdentifier(self);
    const previous = table.get(id);
    if (previous?.time) self.time = previous.time;
    table.set(id, self);

    let result = merge(liveValue, config, this.root) as JsonMap;
    if (previous) result = this.prune(result, table, previous.set);
    const c = this.diff(liveValue, result);
    const changed = c.changed;

    const conflicts = conflictsWith(table, id, changed);
    if (conflicts.length && !force) {
      // kubectl moving from client-side apply: fields its last-applied annotation set are its own.
      const allowed = manager === 'kubectl' ? allowedConflictsFromLastApplied(liveValue, this.apiVersion, this.root) : undefined;
      const remaining = allowed ? conflicts.filter((x) => !allowed.has(x.path)) : conflicts;
      if (remaining.length) throw applyConflictError(remaining);
    }
    for (const [otherId, o] of table) if (otherId !== id) o.set = o.set.difference(changed).difference(c.removed);

    if (!deepEqual(liveValue, result)) self.time = rfc3339Now(this.now());
    const out = result as unknown as KubeObject;
    if (manager === 'kubectl') syncLastApplied(out, config);
    this.store(out, table);
    return out;
  }

  private checkConfig(config: JsonMap): void {
    const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
    const kind = typeof config.kind === 'string' ? config.kind : '';
    if (apiVersion !== this.apiVersion || kind !== this.opts.kind) {
      // Go prints a group-version without a group as "/v1".
      throw badRequest(`invalid object type: ${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}`);
    }
    const meta = config.metadata as { managedFields?: unknown; name?: unknown } | undefined;
    if (meta && meta.managedFields !== undefined && meta.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
    // Wrong JSON types are a 400 from decodeTyped; fields the schema does not declare cannot be owned.
    const unknown = decodeTyped(config, this.opts.schema, this.opts.registry);
    const problems = [...unknown.map((p) => `.${p}: field not declared in schema`), ...applyConfigErrors(config, this.root)];
    if (problems.length) {
      const detail = problems.length === 1 ? problems[0]! : `errors:\n${problems.map((p) => `  ${p}`).join('\n')}`;
      throw badRequest(`failed to create typed patch object (/${String(meta?.name ?? '')}; ${this.apiVersion}, Kind=${this.opts.kind}): ${detail}`);
    }
  }

  /** Removes what the applier owned before and no longer applies, unless another manager owns it. */
  private prune(merged: JsonMap, table: OwnershipTable, previous: FieldSet): JsonMap {
    let owned = new FieldSet();
    for (const o of table.values()) owned = owned.union(o.set);
    const drop = new FieldSet();
    for (const path of previous.paths()) {
      if (owned.has(path)) continue;
      // A named field stays while someone owns something inside it; a list item goes with its key.
      if (path[path.length - 1]!.startsWith('f:') && !(owned.nodeAt(path)?.isEmpty() ?? true)) continue;
      drop.insert(path);
    }
    return (removeFields(merged, drop, this.root) as JsonMap | undefined) ?? {};
  }

  private store(obj: KubeObject, table: OwnershipTable): void {
    for (const o of table.values()) o.set = o.set.difference(SYSTEM_FIELDS);
    capUpdateManagers(table);
    const entries: ManagedFieldsEntry[] = encodeManagedFields(table);
    obj.metadata ??= {};
    if (entries.length) obj.metadata.managedFields = entries;
    else delete obj.metadata.managedFields;
  }
}

/** The stored object's table; one that cannot be decoded counts as empty (as kube does). */
function liveTable(obj: KubeObject): OwnershipTable {
  try {
    return decodeManagedFields(obj.metadata?.managedFields);
  } catch {
    return new Map();
  }
}

function withoutManagedFields(obj: KubeObject): JsonMap {
  if (!obj.metadata?.managedFields) return obj as unknown as JsonMap;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...(obj as unknown as JsonMap), metadata };
}

function conflictsWith(table: OwnershipTable, selfId: string, changed: FieldSet): FieldConflict[] {
  const out: FieldConflict[] = [];
  for (const [id, owner] of table) {
    if (id === selfId) continue;
    for (const path of owner.set.intersection(changed).paths()) out.push({ id, owner, path: path as FieldPathElements });
  }
  return out;
}
