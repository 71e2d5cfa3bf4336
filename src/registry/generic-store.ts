// The generic CRUD engine (kube's registry Store), driven by a kind's definition and strategy.
// Order of work on writes: system fields → prepare → validate (422) → admission (403) →
// optimistic write (409, retried when the client gave no resourceVersion). Objects with
// finalizers are marked on delete and removed when their last finalizer goes. Longer than our
// usual file: every verb shares the read-modify-write loop and the system-field rules kept here.

import { randomFillSync, randomUUID } from 'node:crypto';
import { runAdmission, runMutation, type AdmissionAttributes, type AdmissionOperation, type AdmissionPlugin } from '../apimachinery/admission.js';
import { commonSchemas } from '../apimachinery/common-schemas.js';
import { FieldPath, fieldErrors } from '../apimachinery/field-error.js';
import { canonicalOrder, setResourceVersion } from '../apimachinery/field-order.js';
import { cloneJson, isJsonMap, textOf } from '../apimachinery/json-value.js';
import { FieldManager } from '../apimachinery/managed-fields/field-manager.js';
import { rfc3339Now, type DeleteOptions, type KubeObject } from '../apimachinery/object-meta.js';
import type { RequestContext } from '../apimachinery/request-context.js';
import { badRequest, conflict, invalid, isStatusError, methodNotSupported, nameMismatch, notFound, resourceExpired, resourceVersionTooLarge } from '../apimachinery/status-error.js';
import { isStorageError, type KeyValue, type PutResult, type RevisionedStore } from '../storage/revisioned-store.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { listReadMode, matchesSelectors, parseSelectors } from './list-options.js';
import { exactResourceVersion, parseResourceVersion, sameResourceVersion } from './resource-version.js';
import { decodeObject, decodeShared, putShared, sharedShape } from './object-codec.js';
import { RecentWrites } from './recent-writes.js';
import { keyPrefixOf, objectKey, rangePrefix } from './object-keys.js';
import { checkPatchedNamespace, ensureObjectNamespace, requestNamespace, requireExistingNamespace } from './namespaces.js';
import { sameStoredForm } from './stored-form.js';
import { apiVersionOf, groupKindOf, groupResourceOf, isNamespaced, type ResourceDefinition } from './resource-definition.js';
import type { ApplyOptions, DeleteOutput, GetQuery, ListOutput, ListQuery, ObjectWatch, RestStorage, UpdateFn, UpdateOutput, WatchQuery, WriteOptions } from './rest-storage.js';
import { watchObjects } from './object-watch.js';
import { translateStorageError } from './storage-errors.js';
import { stopIfAbandoned } from './abandon.js';
import type { Strategy } from './strategy.js';

/** Lost races re-run the write (kube retries without bound); enough for any realistic number of concurrent writers. */
const MAX_RETRIES = 100;
const GENERATE_NAME_ATTEMPTS = 8;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_PREFIX = 58;

export { keyPrefixOf } from './object-keys.js';

export interface GenericStoreOptions<T extends KubeObject> {
  definition: ResourceDefinition<T>;
  strategy: Strategy<T>;
  /** '' for the main resource, 'status' for the status subresource (get and update only). */
  subresource: '' | 'status';
  storage: RevisionedStore;
  admission: readonly AdmissionPlugin[];
  now?: () => Date;
  /**
   * The versions this process wrote that the watch cache may not show yet, shared by the stores
   * of one kind over one storage (its main resource and /status): an update starts from them.
   */
  recentWrites?: RecentWrites;
}

/** Where an update round starts: a version, and whether it is known to be the store's current one. */
interface UpdateStart {
  kv: KeyValue | undefined;
  /** Read from the store, or the current version a lost compare answered with (not the cache's copy). */
  current: boolean;
}

export class GenericStore<T extends KubeObject> implements RestStorage<T> {
  readonly definition: ResourceDefinition<T>;
  readonly subresource: '' | 'status';
  private readonly strategy: Strategy<T>;
  private readonly storage: RevisionedStore;
  private readonly admission: readonly AdmissionPlugin[];
  private readonly now: () => Date;
  private readonly prefix: string;
  private readonly namespaced: boolean;
  /** Field ownership (managedFields) for this endpoint. */
  private readonly fields: FieldManager;
  private readonly recent: RecentWrites;

  constructor(opts: GenericStoreOptions<T>) {
    this.definition = opts.definition;
    this.subresource = opts.subresource;
    this.strategy = opts.strategy;
    this.storage = opts.storage;
    this.admission = opts.admission;
    this.now = opts.now ?? (() => new Date());
    this.recent = opts.recentWrites ?? new RecentWrites();
    this.prefix = keyPrefixOf(opts.definition);
    this.namespaced = isNamespaced(opts.definition);
    const def = opts.definition;
    this.fields = new FieldManager({
      group: def.group,
      version: def.version,
      kind: def.kind,
      schema: def.schemas[def.schemaName]!,
      registry: { ...commonSchemas, ...def.schemas },
      subresource: opts.subresource,
      resetFields: opts.strategy.resetFields,
      emptyObject: () => ({ apiVersion: apiVersionOf(def), kind: def.kind, ...def.zeroValue() }),
      now: this.now,
    });
  }

  private get gr() {
    return groupResourceOf(this.definition);
  }

  /** The key of `name` in the request's namespace (a namespaced kind needs one). */
  private key(ctx: RequestContext, name: string): string {
    return objectKey(this.prefix, this.namespaced, this.namespaceFor(ctx), name);
  }

  /** The request's namespace for a namespaced kind (required: kube's NamespaceKeyFunc); '' for a cluster-scoped one. */
  private namespaceFor(ctx: RequestContext): string {
    if (!this.namespaced) return '';
    const ns = requestNamespace(ctx);
    if (!ns) throw badRequest('Namespace parameter required.');
    return ns;
  }

  /** A stored value as this kind's object, shared by every reader of that version (read-only). */
  private shared(kv: KeyValue): T {
    const stored = decodeShared<KubeObject>(kv);
    const as = this.definition.storedAs;
    return as ? sharedShape(stored, as.fromStored) : (stored as T);
  }

  /** A stored value as this kind's object of the caller's own. */
  private decoded(kv: KeyValue): T {
    const as = this.definition.storedAs;
    return as ? as.fromStored(decodeObject(kv)) : decodeObject<T>(kv);
  }

  /**
   * Writes `obj` (this kind's shape) and stamps its resourceVersion; a kind stored as another is
   * written in that kind's shape, and the object the write stored becomes that version's shared form.
   */
  private async put(key: string, obj: T, expectedModRevision: number): Promise<void> {
    const as = this.definition.storedAs;
    const stored = as ? as.toStored(obj) : obj;
    let r: PutResult;
    try {
      r = await putShared(stored, (bytes) => this.storage.optimisticPut(key, bytes, expectedModRevision));
    } catch (err) {
      // Lost a compare, or an outcome not known: what this process wrote last is no guide now.
      this.recent.forget(key);
      throw err;
    }
    this.recent.wrote(r.kv);
    setResourceVersion(obj, String(r.revision));
    // Stryker disable next-line ConditionalExpression: equivalent, decodeShared stamps the written object with its revision when it shares it, and nobody else holds `stored` otherwise
    if (as) setResourceVersion(stored, String(r.revision));
  }

  /** Deletes `key` at `expectedModRevision` (what this process wrote of it is forgotten, whatever the outcome). */
  private async remove(key: string, expectedModRevision: number): Promise<void> {
    this.recent.forget(key);
    await this.storage.optimisticDelete(key, expectedModRevision);
  }

  private requireMainResource(verb: string): void {
    if (this.subresource) throw methodNotSupported({ group: this.definition.group, resource: `${this.definition.plural}/${this.subresource}` }, verb);
  }

  /** The store's revisions; a store that cannot answer is a Status (503), like any storage error. */
  private currentRevision(): Promise<number> {
    // Stryker disable next-line StringLiteral: equivalent, the name shows only in the Status of a key's error (exists, not found, conflict), which reading the store's revision never is
    return this.storage.currentRevision().catch((err: unknown) => translateStorageError(err, this.gr, ''));
  }

  private compactedRevision(): Promise<number> {
    // Stryker disable next-line StringLiteral: equivalent, the name shows only in the Status of a key's error (exists, not found, conflict), which reading the compacted revision never is
    return this.storage.compactedRevision().catch((err: unknown) => translateStorageError(err, this.gr, ''));
  }

  private async read(ctx: RequestContext, name: string, anyRecent = false): Promise<KeyValue | undefined> {
    try {
      return (await this.storage.get(this.key(ctx, name), { anyRecent })).kv;
    } catch (err) {
      return translateStorageError(err, this.gr, name);
    }
  }

  /** The store's current version of `name` (a read of the store). */
  private async currentStart(ctx: RequestContext, name: string): Promise<UpdateStart> {
    return { kv: await this.read(ctx, name), current: true };
  }

  /**
   * Where an update starts without reading the store (kube's GuaranteedUpdate from the watch
   * cache's copy): the cache's copy, or the version this process wrote if the cache has not
   * seen it yet. Not known to be current: the write's compare decides.
   */
  private async cachedStart(ctx: RequestContext, name: string): Promise<UpdateStart> {
    const key = this.key(ctx, name);
    let got;
    try {
      got = await this.storage.get(key, { anyRecent: true });
    } catch (err) {
      return translateStorageError(err, this.gr, name);
    }
    return { kv: this.recent.ahead(key, got.revision) ?? got.kv, current: false };
  }

  async get(ctx: RequestContext, name: string, query: GetQuery): Promise<T> {
    const rv = query.resourceVersion ?? '';
    if (rv && rv !== '0') {
      const wanted = parseResourceVersion(rv);
      const current = await this.currentRevision();
      if (wanted > current) throw resourceVersionTooLarge(exactResourceVersion(rv), current);
    }
    const kv = await this.read(ctx, name, rv === '0');
    if (!kv) throw notFound(this.gr, name);
    // Shared with every reader of this stored version (decoded and serialized once).
    return this.shared(rv === '0' ? kv : await this.asCached(kv));
  }

  /**
   * The watch cache's copy of `kv` when it holds that very version (same revision, same bytes):
   * a read the store answered (etcd's consistent get) is then decoded and serialized once per
   * version, as the cache's readers are, not once per read.
   */
  private async asCached(kv: KeyValue): Promise<KeyValue> {
    // A cache that cannot answer leaves the store's copy as the answer.
    const cached = await this.storage.get(kv.key, { anyRecent: true }).then(
      (r) => r.kv,
      () => undefined,
    );
    if (!cached || cached === kv) return kv;
    return cached.modRevision === kv.modRevision && cached.createRevision === kv.createRevision && sameBytes(cached.value, kv.value) ? cached : kv;
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<ListOutput<T>> {
    this.requireMainResource('list');
    const selectors = parseSelectors(this.definition, query);
    const mode = listReadMode(query);
    // Stryker disable next-line EqualityOperator: equivalent, `>= 0` differs from `> 0` only at 0, which `query.limit &&` has already turned into 0
    const limit = query.limit && query.limit > 0 ? query.limit : 0;
    let revision = 0;
    let after = '';
    let exactRevision: bigint | undefined;
    if (query.continue) {
      const position = decodeContinue(query.continue);
      revision = position.revision;
      exactRevision = position.exactRevision;
      after = position.after;
      const compacted = await this.compactedRevision();
      if (revision < compacted) {
        const fresh = encodeContinue(await this.currentRevision(), after);
        const err = resourceExpired(CONTINUE_TOO_OLD);
        err.status.metadata = { continue: fresh };
        throw err;
      }
    } else if (mode.kind === 'exact') {
      revision = mode.revision;
      // Stryker disable next-line StringLiteral: equivalent, an exact read has a resourceVersion (listReadMode), so the fallback is never taken
      exactRevision = exactResourceVersion(query.resourceVersion ?? '');
    } else if (mode.kind === 'notOlderThan') {
      const current = await this.currentRevision();
      // Stryker disable next-line StringLiteral: equivalent, a not-older-than read has a resourceVersion (listReadMode), so the fallback is never taken
      if (mode.revision > current) throw resourceVersionTooLarge(exactResourceVersion(query.resourceVersion ?? ''), current);
    }

    const items: T[] = [];
    // Stryker disable next-line StringLiteral: equivalent, lastKey is read only when a page was cut at the limit, after a key has set it
    let lastKey = '';
    let more = false;
    let remaining: number | undefined;
    let snapshot = revision;
    // `metadata.name=x` selects at most one object (kube reads only its key): only keys starting
    // with it are read, not the whole collection; the selector still decides which match.
    const listPrefix = rangePrefix(this.prefix, this.namespaced, requestNamespace(ctx));
    // Across namespaces a name is not a key (the namespace comes first): the whole range is read.
    const name = listPrefix === this.prefix && this.namespaced ? undefined : selectors.fields.exactValue('metadata.name');
    const readPrefix = name === undefined ? listPrefix : listPrefix + name;
    for (let startAfter = after ? listPrefix + after : ''; ; ) {
      // Each page is a read and a decode of up to a page of objects: not for a request abandoned.
      stopIfAbandoned(ctx);
      let page;
      try {
        page = await this.storage.list(readPrefix, {
          revision: snapshot || undefined,
          limit: limit ? Math.max(limit, 100) : 0,
          startAfter: startAfter || undefined,
          // resourceVersion=0: the cache's state as it is, no consistent-read round trip (kube).
          anyRecent: !snapshot && query.resourceVersion === '0',
          // kube sets remainingItemCount only for a list without selectors (a count of the
          // keys left says nothing of how many of them would match one).
          countRemaining: limit > 0 && selectors.everything,
          // A cache with a label index returns only the keys these requirements allow.
          labels: selectors.labelHint.length ? selectors.labelHint : undefined,
        });
      } catch (err) {
        // Stryker disable next-line StringLiteral: equivalent, the name shows only in the Status of a key's error (exists, not found, conflict), which a list never is
        return translateStorageError(err, this.gr, '', snapshot === revision && exactRevision !== undefined ? exactRevision : snapshot);
      }
      snapshot = page.revision;
      let i = 0;
      for (; i < page.kvs.length && (!limit || items.length < limit); i++) {
        const kv = page.kvs[i]!;
        lastKey = kv.key;
        // Shared with every other reader of this stored value (the watch cache keeps values
        // alive), so a list from the cache decodes each object once, not once per list.
        const obj = this.shared(kv);
        if (matchesSelectors(this.definition, selectors, obj)) items.push(obj);
      }
      if (limit && items.length >= limit) {
        more = i < page.kvs.length || page.more;
        if (more && page.remaining !== undefined) remaining = page.kvs.length - i + page.remaining;
        break;
      }
      if (!page.more || page.kvs.length === 0) break;
      startAfter = page.kvs[page.kvs.length - 1]!.key;
    }
    const out: ListOutput<T> = { items, resourceVersion: String(snapshot) };
    if (more) out.continue = encodeContinue(snapshot, lastKey.slice(listPrefix.length));
    if (more && remaining !== undefined) out.remainingItemCount = remaining;
    return out;
  }

  async create(ctx: RequestContext, input: T, opts: WriteOptions): Promise<T> {
    this.requireMainResource('create');
    return this.createObject(ctx, input, opts.fieldManager);
  }

  /**
   * Creates `input` (never changed: each attempt works on its own copy); `recordAs` records the
   * create in managedFields (apply's result has them already).
   */
  private async createObject(ctx: RequestContext, input: T, recordAs?: string): Promise<T> {
    if (input.metadata?.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    const generateName = !input.metadata?.name && input.metadata?.generateName;
    // As kube's create handler, then its NamespaceLifecycle admission: before anything else.
    const ns = this.namespaceFor(ctx);
    let admitted = cloneJson(input);
    ensureObjectNamespace(admitted.metadata ?? (admitted.metadata = {}), this.namespaced, ns);
    if (this.namespaced) requireExistingNamespace(ns);
    // System fields are never owned, so recording before they are set is the same as after.
    if (recordAs !== undefined) this.fields.recordUpdate(undefined, admitted, recordAs);
    // Mutating admission sees the object as sent (its namespace filled from the request), before
    // system fields and the kind's own rules (kube).
    admitted = await this.mutate(ctx, 'CREATE', admitted, undefined, createOptions(ctx, recordAs));
    for (let attempt = 0; ; attempt++) {
      stopIfAbandoned(ctx);
      const obj = cloneJson(admitted);
      this.fillCreateSystemFields(obj, ns);
      this.strategy.prepareForCreate(ctx, obj);
      const errs = this.strategy.validate(ctx, obj);
      if (errs.length) throw invalid(groupKindOf(this.definition), obj.metadata.name ?? '', errs);
      ctx.warnings.push(...this.strategy.warningsOnCreate(ctx, obj));
      await this.admit(ctx, 'CREATE', obj, undefined, createOptions(ctx, recordAs));
      const stored = this.canonical(obj);
      if (ctx.dryRun) return stored;
      // The last point to stop: once the write is sent, its outcome is reported whatever it is.
      stopIfAbandoned(ctx);
      try {
        await this.put(this.key(ctx, stored.metadata.name!), stored, 0);
        return stored;
      } catch (err) {
        if (generateName && isStorageError(err, 'KeyExists') && attempt < GENERATE_NAME_ATTEMPTS) continue;
        return translateStorageError(err, this.gr, obj.metadata.name!);
      }
    }
  }

  /** The object with its fields in the kind's (kube's) order: how it is stored and served. */
  private canonical(obj: T): T {
    return canonicalOrder(obj, this.definition.fieldOrder);
  }

  private fillCreateSystemFields(obj: T, namespace: string): void {
    const m = obj.metadata;
    for (const f of ['creationTimestamp', 'uid', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'namespace'] as const) delete m[f];
    if (namespace) m.namespace = namespace;
    if (!m.name && m.generateName) m.name = this.definition.generateName ? this.definition.generateName(m.generateName) : m.generateName.slice(0, MAX_GENERATE_PREFIX) + randomSuffix();
    m.creationTimestamp = rfc3339Now(this.now());
    m.uid = randomUUID();
  }

  async update(ctx: RequestContext, name: string, fn: UpdateFn<T>, opts: WriteOptions): Promise<UpdateOutput<T>> {
    const createIfMissing = (opts.createIfMissing ?? false) && this.strategy.allowCreateOnUpdate && !this.subresource;
    return this.write(ctx, name, fn, { retryOnConflict: opts.retryOnConflict ?? false, recordAs: opts.fieldManager, createIfMissing });
  }

  async apply(ctx: RequestContext, name: string, config: Record<string, unknown>, opts: ApplyOptions): Promise<UpdateOutput<T>> {
    const meta = config.metadata ?? {};
    const isMap = isJsonMap(meta);
    const metaName = isMap ? (meta as { name?: unknown }).name : undefined;
    if (metaName !== undefined && metaName !== name) {
      throw nameMismatch(textOf(metaName), name);
    }
    // Stryker disable next-line LogicalOperator: equivalent, a cluster-scoped request has no namespace to compare, and a metadata that is not an object has none either
    if (isMap && this.namespaced) checkPatchedNamespace(meta as { namespace?: string }, requestNamespace(ctx));
    // A configuration without a name applies to the object the URL names (a metadata that is
    // not an object is left for the field manager to refuse).
    const named = isMap && metaName === undefined ? { ...config, metadata: { ...meta, name } } : config;
    const applyTo = (current: T | undefined) => this.fields.apply(current, named, opts.fieldManager, opts.force) as T;
    // The field manager builds its result from the copy it is given and copies of the configuration.
    return this.write(ctx, name, applyTo, { retryOnConflict: true, createIfMissing: !this.subresource, privateResult: true });
  }

  /**
   * kube's GuaranteedUpdate: compute the new object from a version, write it if the version is
   * still the stored one. The first round starts from the watch cache's copy, or from the version
   * this process wrote if the cache has not shown it yet (recent-writes.ts), without reading the
   * store: the common case is one write and no read. A write that loses its compare brings back
   * the version it lost to (etcd's Txn answers with it in its failure branch) and the next round
   * starts from that, again without a read. A copy not known to be current is checked against
   * the store before it decides anything on its own: an update it refuses (a stale resourceVersion,
   * validation) or finds to change nothing is read again, and answered from the store's version.
   * A dry run reads the store (nothing is written to check the copy against).
   * `recordAs` records the write in managedFields (apply computes them itself);
   * `createIfMissing` creates from fn(undefined) when there is no object (apply);
   * `privateResult`: fn returns an object nobody else holds, so it is not copied again.
   */
  private async write(
    ctx: RequestContext,
    name: string,
    fn: UpdateFn<T>,
    opts: { retryOnConflict: boolean; recordAs?: string; createIfMissing?: boolean; privateResult?: boolean },
  ): Promise<UpdateOutput<T>> {
    const warningsBefore = ctx.warnings.length;
    /** Where the next round starts: set by a lost compare (the current version) or a re-read. */
    let start: UpdateStart | undefined;
    for (let attempt = 0; ; attempt++) {
      // Before each read-decode-compute round (a retry after a lost race included).
      stopIfAbandoned(ctx);
      // A round's warnings are its own: a round done again says them again, once.
      ctx.warnings.length = warningsBefore;
      const from = start ?? (ctx.dryRun ? await this.currentStart(ctx, name) : await this.cachedStart(ctx, name));
      start = undefined;
      const kv = from.kv;
      if (!kv) {
        // The cache does not have it: whether it exists is the store's to say.
        if (!from.current) {
          start = await this.currentStart(ctx, name);
          continue;
        }
        if (!opts.createIfMissing) throw notFound(this.gr, name);
        const fresh = cloneJson(await fn(undefined));
        // A replace that creates: the version it names is of nothing (kube ignores it).
        if (opts.recordAs !== undefined) delete fresh.metadata.resourceVersion;
        try {
          return { object: await this.createObject(ctx, fresh, opts.recordAs), created: true };
        } catch (err) {
          // Created by someone else meanwhile: apply to theirs.
          if (isStatusError(err) && err.status.reason === 'AlreadyExists' && attempt < MAX_RETRIES) continue;
          throw err;
        }
      }
      // The stored version as every reader shares it (the watch cache's event decoded it already):
      // read-only here; fn changes a copy.
      const old = this.shared(kv);
      let computed;
      try {
        computed = await this.computeUpdate(ctx, name, fn, opts, old);
      } catch (err) {
        if (from.current) throw err;
        // A version older than the copy was named: the current one is newer still (a key's
        // revision only grows), so the 409 stands without a read (a status controller deciding
        // on an informer copy older than its own last write).
        const named = isStatusError(err) ? namedVersion.get(err) : undefined;
        if (named !== undefined && named < kv.modRevision) throw err;
        // Refused on a copy that may be behind: only the current version's answer counts.
        start = await this.currentStart(ctx, name);
        if (start.kv?.modRevision === kv.modRevision) throw err;
        continue;
      }
      const { next, clientRV } = computed;
      if (sameStoredForm(next, old)) {
        if (from.current) return { object: old, created: false };
        // Nothing to write to prove the copy current: the store says whether it is.
        start = await this.currentStart(ctx, name);
        if (start.kv?.modRevision === kv.modRevision) return { object: old, created: false };
        continue;
      }
      if (ctx.dryRun) return { object: next, created: false };
      stopIfAbandoned(ctx);
      try {
        if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
          // The last finalizer is gone: the object goes now.
          await this.remove(this.key(ctx, name), kv.modRevision);
          return { object: next, created: false };
        }
        await this.put(this.key(ctx, name), next, kv.modRevision);
        return { object: next, created: false };
      } catch (err) {
        if (attempt < MAX_RETRIES) {
          // Written meanwhile: the next round starts from the version the write lost to.
          if (isStorageError(err, 'Conflict') && (!clientRV || opts.retryOnConflict)) {
            start = { kv: err.current, current: true };
            continue;
          }
          // Deleted meanwhile (or never there, the copy being behind): the store says it is gone.
          if (isStorageError(err, 'KeyNotFound')) {
            start = { kv: undefined, current: true };
            continue;
          }
        }
        return translateStorageError(err, this.gr, name);
      }
    }
  }

  /** One round's new object from `old`: fn, managedFields, the resourceVersion check, strategy, admission. */
  private async computeUpdate(
    ctx: RequestContext,
    name: string,
    fn: UpdateFn<T>,
    opts: { recordAs?: string; privateResult?: boolean },
    old: T,
  ): Promise<{ next: T; clientRV: string }> {
    const result = await fn(cloneJson(old));
    let obj = opts.privateResult ? result : cloneJson(result);
    if (opts.recordAs !== undefined) this.fields.recordUpdate(old, obj, opts.recordAs);
    // Mutating admission sees the new object before the version check and the kind's own rules (kube).
    obj = await this.mutate(ctx, 'UPDATE', obj, old, updateOptions(ctx, opts.recordAs));
    const clientRV = obj.metadata.resourceVersion ?? '';
    // kube's update handler: the object's namespace is the request's (400 when it names another).
    ensureObjectNamespace(obj.metadata, this.namespaced, this.namespaceFor(ctx));
    if (!clientRV && !this.strategy.allowUnconditionalUpdate) {
      throw invalid(groupKindOf(this.definition), name, [
        fieldErrors.invalid(FieldPath.root('metadata').child('resourceVersion'), 0, 'must be specified for an update'),
      ]);
    }
    // Compared as numbers, as kube does; a resourceVersion that is not a uint64 is a 400.
    // Stryker disable next-line StringLiteral: equivalent, a stored object always has a resourceVersion (its modRevision), so the fallback is never taken
    if (clientRV && !sameResourceVersion(clientRV, old.metadata.resourceVersion ?? '')) {
      const err = conflict(this.gr, name);
      namedVersion.set(err, parseResourceVersion(clientRV));
      throw err;
    }
    obj.metadata.resourceVersion = old.metadata.resourceVersion;
    this.carryOverSystemFields(obj, old);
    this.strategy.prepareForUpdate(ctx, obj, old);
    const errs = this.strategy.validateUpdate(ctx, obj, old);
    if (errs.length) throw invalid(groupKindOf(this.definition), name, errs);
    ctx.warnings.push(...this.strategy.warningsOnUpdate(ctx, obj, old));
    await this.admit(ctx, 'UPDATE', obj, old, updateOptions(ctx, opts.recordAs));
    return { next: this.canonical(obj), clientRV };
  }

  /** kube's BeforeUpdate: clients cannot change generation, uid, creation or deletion facts. */
  private carryOverSystemFields(obj: T, old: T): void {
    const m = obj.metadata;
    const o = old.metadata;
    if (o.namespace) m.namespace = o.namespace;
    else delete m.namespace;
    delete m.selfLink;
    if (o.generation === undefined) delete m.generation;
    else m.generation = o.generation;
    if (!m.uid && o.uid) m.uid = o.uid;
    if (o.creationTimestamp) m.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds === undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  }

  async delete(ctx: RequestContext, name: string, opts: DeleteOptions): Promise<DeleteOutput<T>> {
    return this.deleteObject(ctx, name, opts, name);
  }

  /** `admissionName`: the name admission is told (empty for each object of a delete-collection, as kube). */
  private async deleteObject(ctx: RequestContext, name: string, opts: DeleteOptions, admissionName: string): Promise<DeleteOutput<T>> {
    this.requireMainResource('delete');
    for (let attempt = 0; ; attempt++) {
      stopIfAbandoned(ctx);
      const kv = await this.read(ctx, name);
      if (!kv) throw notFound(this.gr, name);
      const obj = this.decoded(kv);
      this.checkPreconditions(name, obj, opts);
      // Admission of a delete sees the stored object as oldObject, once preconditions hold (kube).
      await this.admitDelete(ctx, admissionName, obj, opts);
      if (obj.metadata.finalizers?.length) {
        // A Conflict (the object changed meanwhile) starts over from a fresh read with the
        // caller's preconditions, a bounded number of times, as kube's GuaranteedUpdate loop.
        const marked = await this.markForDeletion(ctx, name, obj, kv, attempt < MAX_RETRIES);
        if (marked === 'conflict') continue;
        return marked;
      }
      if (ctx.dryRun) return { object: obj, deleted: true };
      stopIfAbandoned(ctx);
      try {
        await this.remove(this.key(ctx, name), kv.modRevision);
        return { object: obj, deleted: true };
      } catch (err) {
        if (isStorageError(err, 'Conflict') && attempt < MAX_RETRIES) continue;
        return translateStorageError(err, this.gr, name);
      }
    }
  }

  private checkPreconditions(name: string, obj: T, opts: DeleteOptions): void {
    const p = opts.preconditions;
    if (p?.uid && p.uid !== obj.metadata.uid) {
      throw conflict(this.gr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
    }
    if (p?.resourceVersion && p.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in meta: ${obj.metadata.resourceVersion ?? ''}`);
    }
  }

  /**
   * Finalizers pending: set deletionTimestamp once; the object stays until they are removed.
   * 'conflict' when the object changed since it was read and the caller may try again.
   */
  private async markForDeletion(ctx: RequestContext, name: string, obj: T, kv: KeyValue, mayRetry: boolean): Promise<DeleteOutput<T> | 'conflict'> {
    if (obj.metadata.deletionTimestamp) return { object: obj, deleted: false };
    obj.metadata.deletionTimestamp = rfc3339Now(this.now());
    obj.metadata.deletionGracePeriodSeconds = 0;
    const marked = this.canonical(obj);
    if (ctx.dryRun) return { object: marked, deleted: false };
    stopIfAbandoned(ctx);
    try {
      await this.put(this.key(ctx, name), marked, kv.modRevision);
      return { object: marked, deleted: false };
    } catch (err) {
      if (isStorageError(err, 'Conflict') && mayRetry) return 'conflict';
      return translateStorageError(err, this.gr, name);
    }
  }

  async deleteCollection(ctx: RequestContext, opts: DeleteOptions, query: ListQuery): Promise<ListOutput<T>> {
    this.requireMainResource('deletecollection');
    const listed = await this.list(ctx, { ...query, limit: undefined, continue: undefined });
    const deleted: T[] = [];
    for (const item of listed.items) {
      try {
        deleted.push((await this.deleteObject(ctx, item.metadata.name!, opts, '')).object);
      } catch (err) {
        // Deleted by someone else meanwhile: that is fine for a collection delete.
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    return { items: deleted, resourceVersion: listed.resourceVersion };
  }

  async watch(ctx: RequestContext, query: WatchQuery, signal?: AbortSignal): Promise<ObjectWatch<T>> {
    this.requireMainResource('watch');
    const selectors = parseSelectors(this.definition, query);
    const rv = query.resourceVersion ?? '';
    validateWatchListOptions(query);
    // Without sendInitialEvents, kube's legacy rule: resourceVersion unset or "0" starts with the current state.
    const sendInitial = query.sendInitialEvents ?? (rv === '' || rv === '0');
    let afterRevision: number;
    let initial: T[] = [];
    if (sendInitial) {
      // Stryker disable next-line StringLiteral: equivalent, a list reads resourceVersion '' as unset
      const snapshot = await this.list(ctx, { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector, resourceVersion: rv === '' ? undefined : rv });
      afterRevision = Number(snapshot.resourceVersion);
      initial = snapshot.items;
    } else {
      afterRevision = parseResourceVersion(rv);
      const compacted = await this.compactedRevision();
      if (afterRevision < compacted) throw resourceExpired(`too old resource version: ${afterRevision} (${compacted})`);
    }
    const watchPrefix = rangePrefix(this.prefix, this.namespaced, requestNamespace(ctx));
    // A name is a key only within one namespace (or for a cluster-scoped kind).
    const name = watchPrefix === this.prefix && this.namespaced ? undefined : selectors.fields.exactValue('metadata.name');
    try {
      return watchObjects({
        storage: this.storage,
        prefix: watchPrefix,
        onlyKey: name === undefined ? undefined : watchPrefix + name,
        decode: (kv) => this.shared(kv),
        definition: this.definition,
        selectors,
        afterRevision,
        initial,
        initialEventsEnd: query.sendInitialEvents === true,
        signal,
      });
    } catch (err) {
      // Refused before any response (a watch cache re-initializing: 429 with Retry-After).
      // Stryker disable next-line StringLiteral: equivalent, the name shows only in the Status of a key's error (exists, not found, conflict), which starting a watch never is
      return translateStorageError(err, this.gr, '', afterRevision);
    }
  }

  private attributes(ctx: RequestContext, operation: AdmissionOperation, name: string, obj: T | undefined, old: T | undefined, options: Record<string, unknown>): AdmissionAttributes {
    return {
      operation,
      group: this.definition.group,
      version: this.definition.version,
      kind: this.definition.kind,
      resource: this.definition.plural,
      subresource: this.subresource,
      name,
      namespace: this.namespaced ? this.namespaceFor(ctx) : '',
      object: obj,
      oldObject: old,
      user: ctx.user,
      dryRun: ctx.dryRun,
      options,
      warnings: ctx.warnings,
      annotate: (key, value) => ctx.annotate?.(key, value),
      signal: ctx.signal,
    };
  }

  /** Mutating admission; answers the object as the plugins left it. */
  private async mutate(ctx: RequestContext, operation: AdmissionOperation, obj: T, old: T | undefined, options: Record<string, unknown>): Promise<T> {
    const attrs = this.attributes(ctx, operation, obj.metadata?.name ?? '', obj, old, options);
    await runMutation(this.admission, attrs);
    return attrs.object as T;
  }

  /** Validating admission of the final object. */
  private async admit(ctx: RequestContext, operation: AdmissionOperation, obj: T, old: T | undefined, options: Record<string, unknown>): Promise<void> {
    // Stryker disable next-line StringLiteral: equivalent, validating admission runs after the name is set (given, generated, or refused by validation)
    await runAdmission(this.admission, this.attributes(ctx, operation, obj.metadata.name ?? '', obj, old, options));
  }

  /** Both phases for a delete: no object, the stored one as oldObject. */
  private async admitDelete(ctx: RequestContext, name: string, old: T, opts: DeleteOptions): Promise<void> {
    const attrs = this.attributes(ctx, 'DELETE', name, undefined, cloneJson(old), deleteOptionsFor(opts));
    await runMutation(this.admission, attrs);
    await runAdmission(this.admission, attrs);
  }
}

/** A 409 decided on the resourceVersion the update named alone, with that version. */
const namedVersion = new WeakMap<object, number>();

const META_V1 = 'meta.k8s.io/v1';
const dryRunOf = (ctx: RequestContext): Record<string, unknown> => (ctx.dryRun ? { dryRun: ['All'] } : {});
const createOptions = (ctx: RequestContext, fieldManager?: string): Record<string, unknown> => ({ kind: 'CreateOptions', apiVersion: META_V1, ...dryRunOf(ctx), ...(fieldManager ? { fieldManager } : {}) });
const updateOptions = (ctx: RequestContext, fieldManager?: string): Record<string, unknown> => ({ kind: 'UpdateOptions', apiVersion: META_V1, ...dryRunOf(ctx), ...(fieldManager ? { fieldManager } : {}) });
const deleteOptionsFor = (opts: DeleteOptions): Record<string, unknown> => ({ kind: 'DeleteOptions', apiVersion: META_V1, ...(opts as Record<string, unknown>) });

/** kube's rules for sendInitialEvents (the WatchList feature). */
function validateWatchListOptions(q: WatchQuery): void {
  if (q.sendInitialEvents === undefined) return;
  const errs = [];
  if (q.resourceVersionMatch !== 'NotOlderThan') {
    errs.push(fieldErrors.forbidden(FieldPath.root('resourceVersionMatch'), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
  }
  if (q.sendInitialEvents && !q.allowWatchBookmarks) {
    errs.push(fieldErrors.forbidden(FieldPath.root('allowWatchBookmarks'), 'sendInitialEvents requires setting allowWatchBookmarks to true'));
  }
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
}

const CONTINUE_TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * Random bytes for generated names, drawn from the CSPRNG a page at a time: one call per
 * generated name costs more than the rest of the name's work (the same idea as Node's own
 * entropy cache behind randomUUID).
 */
const randomPool = new Uint8Array(4096);

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
let randomAt = randomPool.length;

function randomSuffix(): string {
  // Stryker disable next-line EqualityOperator: equivalent, refilling the pool one draw sooner only draws fresh random bytes earlier
  if (randomAt + 5 > randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  let out = '';
  for (let i = 0; i < 5; i++) out += NAME_ALPHABET[randomPool[randomAt++]! % NAME_ALPHABET.length];
  return out;
}
