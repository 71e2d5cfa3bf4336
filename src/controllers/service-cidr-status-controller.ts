// kube-controller-manager's "service-cidr-controller", in process: every ServiceCIDR gets the
// protection finalizer and a Ready=True condition (a failure to set it is reported as kube's
// Warning event KubernetesServiceCIDRError); a ServiceCIDR being deleted keeps its finalizer
// while an allocated IPAddress would be left without a range (Ready=False, reason Terminating;
// service-cidr-deletion.ts), and loses it 10 s after its deletionTimestamp otherwise, so the
// object goes. It watches IPAddresses too: one added or removed re-checks the ServiceCIDRs that
// contain it, and it starts only once both informers have synced, as kube's does.
//
// Safe with every replica running it: decisions are made on the informer's copy, and writes
// are optimistic (the finalizer edits are computed again from the current version inside the
// store's retry loop, which starts from the watch cache's copy or this replica's last write
// without reading etcd; the condition apply carries the resourceVersion it was decided on, so a
// stale decision is a 409 and a retry rather than a second write). A condition is only written when its status, reason or
// message differs, so lastTransitionTime never moves without a transition.

import type { Condition } from '../apimachinery/object-meta.js';
import { internalContext, type Logger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import type { RestStorage } from '../registry/rest-storage.js';
import type { Clock } from './clock.js';
import { Informer } from './informer.js';
import {
  CONDITION_READY,
  CONTROLLER_USER,
  REASON_TERMINATING,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_FINALIZER,
  SERVICE_CIDR_KIND,
  IPALLOCATOR_MANAGER,
  LABEL_MANAGED_BY,
  findCondition,
  rfc3339,
  statusControllerView,
  READY_CONDITION_MESSAGE,
  type IPAddressObject,
  type ServiceCIDRObject,
} from './service-cidr-api.js';
import { ipAddressesDeletionCheck, noAllocatedAddresses, type ServiceCIDRDeletionCheck } from './service-cidr-deletion.js';
import type { EventRecorder } from './events/event-recorder.js';
import { CidrIndex } from './cidr-index.js';
import { parseAddr } from './net-prefix.js';
import { runWorker } from './worker.js';
import { WorkQueue } from './work-queue.js';
import type { BackoffOptions } from '../apimachinery/backoff.js';

export const STATUS_CONTROLLER_NAME = 'service-cidr-controller';
export const READY_MESSAGE = READY_CONDITION_MESSAGE;
export const TERMINATING_MESSAGE = 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR';
/** kube-controller-manager's `Run(ctx, 5)` for this controller. */
export const STATUS_CONTROLLER_WORKERS = 5;
/** Lets allocators see the deletion before the range disappears (kube's deletionGracePeriod). */
export const DELETION_GRACE_MS = 10_000;

export interface ServiceCIDRStatusControllerOptions {
  main: RestStorage<ServiceCIDRObject>;
  status: RestStorage<ServiceCIDRObject>;
  clock: Clock;
  logger: Logger;
  /** The IPAddresses (their informer blocks deletions kube's way); without them nothing can be orphaned. */
  ipAddresses?: RestStorage<IPAddressObject>;
  /** Replaces the IPAddress check (tests). */
  deletion?: ServiceCIDRDeletionCheck;
  /** Where kube's events are recorded. */
  recorder?: EventRecorder;
  deletionGraceMs?: number;
  /** Every key is re-synced this often (0: never), so a key given up on is retried eventually. */
  resyncMs?: number;
  /**
   * Keys synced at once (kube-controller-manager runs this controller with 5 workers). The queue
   * never hands one key to two workers; several workers let the writes of different ServiceCIDRs
   * go to storage together (one commit for all of them) instead of one commit after another.
   */
  workers?: number;
  backoff?: BackoffOptions;
}

export class ServiceCIDRStatusController {
  readonly informer: Informer<ServiceCIDRObject>;
  readonly ipInformer: Informer<IPAddressObject> | undefined;
  private readonly queue: WorkQueue;
  private readonly ctx: RequestContext;
  private readonly deletion: ServiceCIDRDeletionCheck;
  private readonly graceMs: number;
  private workers: Promise<unknown> | undefined;
  private resyncTimer: { cancel(): void } | undefined;
  private stopped = false;
  /**
   * Names of the cached ServiceCIDRs being deleted, kept by the informer's handlers: every add
   * and delete re-checks them, and scanning the whole cache per event would make a stream of
   * creates cost O(objects) each.
   */
  private readonly deleting = new Set<string>();
  /** The informer's ServiceCIDRs by range, kept by its handlers (kube's tree): overlap and containment without a scan. */
  private readonly ranges = new CidrIndex();

  constructor(private readonly o: ServiceCIDRStatusControllerOptions) {
    this.queue = new WorkQueue(o.clock, { backoff: o.backoff });
    this.ctx = internalContext(CONTROLLER_USER, o.logger, { resource: 'servicecidrs' });
    if (o.ipAddresses) {
      // Only addresses kube's allocator manages can block a deletion, so only they re-check one.
      const recheck = (ip: IPAddressObject): void => {
        if (ip.metadata.labels?.[LABEL_MANAGED_BY] !== IPALLOCATOR_MANAGER) return;
        const address = parseAddr(ip.metadata.name ?? '');
        if (address) for (const name of this.ranges.containingAddress(address)) this.queue.add(name);
      };
      this.ipInformer = new Informer({
        source: o.ipAddresses,
        user: CONTROLLER_USER,
        clock: o.clock,
        logger: o.logger,
        // Only the name (the address) and the labels are read.
        transform: (ip) => ({ apiVersion: ip.apiVersion, kind: ip.kind, metadata: { name: ip.metadata.name, resourceVersion: ip.metadata.resourceVersion, labels: ip.metadata.labels } }),
        // kube re-checks on adds and deletes; a label change can unblock or block one too.
        handlers: { onAdd: recheck, onUpdate: (old, ip) => (recheck(old), recheck(ip)), onDelete: recheck },
      });
    }
    const ipInformer = this.ipInformer;
    this.deletion = o.deletion ?? (ipInformer ? ipAddressesDeletionCheck(() => ipInformer.list(), o.logger) : noAllocatedAddresses);
    this.graceMs = o.deletionGraceMs ?? DELETION_GRACE_MS;
    this.informer = new Informer({
      source: o.main,
      user: CONTROLLER_USER,
      clock: o.clock,
      logger: o.logger,
      transform: statusControllerView,
      handlers: {
        onAdd: (obj) => {
          this.track(obj);
          this.ranges.set(obj.metadata.name!, obj.spec?.cidrs);
          this.queue.add(obj.metadata.name!);
          // A new range may now cover one being deleted (kube re-checks the ranges it overlaps).
          this.requeueOverlapping(obj);
          this.requeueDeleting();
        },
        onUpdate: (_old, obj) => {
          this.track(obj);
          this.ranges.set(obj.metadata.name!, obj.spec?.cidrs);
          this.queue.add(obj.metadata.name!);
        },
        onDelete: (obj) => {
          this.deleting.delete(obj.metadata.name!);
          this.ranges.delete(obj.metadata.name!);
          this.queue.add(obj.metadata.name!);
          this.requeueDeleting();
        },
      },
    });
  }

  /** Starts watching; resolves once the first lists (ServiceCIDRs and IPAddresses) are in. */
  async start(): Promise<void> {
    this.informer.start();
    this.ipInformer?.start();
    await Promise.all([this.informer.synced, this.ipInformer?.synced]);
    this.workers ??= Promise.all(Array.from({ length: Math.max(1, this.o.workers ?? STATUS_CONTROLLER_WORKERS) }, () => runWorker(this.queue, (key) => this.sync(key), this.o.logger)));
    this.scheduleResync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resyncTimer?.cancel();
    this.queue.shutDown();
    await Promise.all([this.informer.stop(), this.ipInformer?.stop()]);
    await this.workers;
  }

  /** Keeps `deleting` equal to the informer's objects that carry a deletionTimestamp. */
  private track(obj: ServiceCIDRObject): void {
    if (obj.metadata.deletionTimestamp) this.deleting.add(obj.metadata.name!);
    else this.deleting.delete(obj.metadata.name!);
  }

  private requeueDeleting(): void {
    for (const name of this.deleting) this.queue.add(name);
  }

  /** kube's overlappingServiceCIDRs: every ServiceCIDR with a range overlapping one of `sc`'s. */
  private requeueOverlapping(sc: ServiceCIDRObject): void {
    for (const p of this.ranges.rangesOf(sc.metadata.name!)) for (const name of this.ranges.overlapping(p)) this.queue.add(name);
  }

  private scheduleResync(): void {
    const every = this.o.resyncMs ?? 0;
    if (!every || this.stopped) return;
    this.resyncTimer = this.o.clock.after(every, () => {
      for (const obj of this.informer.list()) this.queue.add(obj.metadata.name!);
      this.scheduleResync();
    });
  }

  /** Brings one ServiceCIDR to its wanted state; throws to be retried with backoff. */
  async sync(name: string): Promise<void> {
    let obj = this.informer.get(name);
    if (!obj) return;
    if (obj.metadata.deletionTimestamp) return this.syncDeleting(obj);
    if (!obj.metadata.finalizers?.includes(SERVICE_CIDR_FINALIZER)) {
      // The condition is then decided on what this write returned, not on the older cached copy.
      obj = await this.addFinalizer(name);
      if (!obj || obj.metadata.deletionTimestamp) return;
    }
    try {
      await this.setCondition(obj, { status: 'True', reason: '', message: READY_MESSAGE });
    } catch (err) {
      // A 409 is this controller's own optimistic check (its apply names the version it decided
      // on) and is retried on fresher data; kube's apply has none, so only real failures are reported.
      if (!(isStatusError(err) && err.code === 409)) {
        this.o.logger.info({ err, serviceCIDR: name }, 'error updating default ServiceCIDR status');
        this.o.recorder?.eventf(obj, 'Warning', 'KubernetesServiceCIDRError', 'The ServiceCIDR Status can not be set to Ready=True');
      }
      throw err;
    }
  }

  private async syncDeleting(obj: ServiceCIDRObject): Promise<void> {
    const name = obj.metadata.name!;
    if (!(await this.deletion.canDelete(obj, this.ranges))) {
      await this.setCondition(obj, { status: 'False', reason: REASON_TERMINATING, message: TERMINATING_MESSAGE });
      return;
    }
    const since = this.o.clock.now().getTime() - Date.parse(obj.metadata.deletionTimestamp!);
    const wait = this.graceMs - since;
    if (wait > 0) {
      this.queue.addAfter(name, wait);
      return;
    }
    if (obj.metadata.finalizers?.includes(SERVICE_CIDR_FINALIZER)) await this.removeFinalizer(name);
  }

  /** Adds the finalizer to the current object (computed again on every lost compare); gone or deleting: nothing to do. */
  private async addFinalizer(name: string): Promise<ServiceCIDRObject | undefined> {
    const out = await this.ignoreNotFound(
      this.o.main.update(
        this.ctx,
        name,
        (cur) => {
          const obj = cur!;
          const finalizers = obj.metadata.finalizers ?? [];
          if (!obj.metadata.deletionTimestamp && !finalizers.includes(SERVICE_CIDR_FINALIZER)) obj.metadata.finalizers = [...finalizers, SERVICE_CIDR_FINALIZER];
          return obj;
        },
        { fieldManager: STATUS_CONTROLLER_NAME, retryOnConflict: true },
      ),
    );
    return out?.object;
  }

  private async removeFinalizer(name: string): Promise<void> {
    await this.ignoreNotFound(
      this.o.main.update(
        this.ctx,
        name,
        (cur) => {
          const obj = cur!;
          const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== SERVICE_CIDR_FINALIZER);
          if (rest.length) obj.metadata.finalizers = rest;
          else delete obj.metadata.finalizers;
          return obj;
        },
        { fieldManager: STATUS_CONTROLLER_NAME, retryOnConflict: true },
      ),
    );
  }

  /** Applies the Ready condition when its status, reason or message differs (kube's updateConditionIfNeeded). */
  private async setCondition(obj: ServiceCIDRObject, want: Pick<Condition, 'status' | 'reason' | 'message'>): Promise<void> {
    const cur = findCondition(obj, CONDITION_READY);
    if (cur && cur.status === want.status && cur.reason === want.reason && cur.message === want.message) return;
    const condition: Condition = { type: CONDITION_READY, status: want.status, lastTransitionTime: rfc3339(this.o.clock.now()), reason: want.reason, message: want.message };
    await applyStatusCondition(this.o.status, this.ctx, obj, condition, STATUS_CONTROLLER_NAME);
  }

  private async ignoreNotFound<R>(p: Promise<R>): Promise<R | undefined> {
    try {
      return await p;
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
      return undefined;
    }
  }
}

/**
 * Server-side apply of one condition to /status, forced, as `manager`. The configuration carries
 * the resourceVersion the decision was made on: if the object moved meanwhile the apply is a
 * 409, and the caller retries on fresher data instead of overwriting someone else's write.
 */
export async function applyStatusCondition(
  status: RestStorage<ServiceCIDRObject>,
  ctx: RequestContext,
  basedOn: ServiceCIDRObject,
  condition: Condition,
  manager: string,
): Promise<void> {
  const name = basedOn.metadata.name!;
  const config = {
    apiVersion: SERVICE_CIDR_API_VERSION,
    kind: SERVICE_CIDR_KIND,
    metadata: { name, resourceVersion: basedOn.metadata.resourceVersion },
    status: { conditions: [condition] },
  };
  await status.apply(ctx, name, config, { fieldManager: manager, force: true });
}
