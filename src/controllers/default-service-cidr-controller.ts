// kube-apiserver's default ServiceCIDR controller: the ServiceCIDR named `kubernetes` carries
// the ranges of --service-cluster-ip-range. Each sync (at start, every 10 s, and whenever the
// object changes):
// - missing: create it from the flags (AlreadyExists is fine: another replica won the race);
// - one CIDR stored, two configured, the first equal: upgrade it to dual-stack with an update;
// - otherwise, status only: nothing while it is being deleted; a spec that differs from the
//   flags is reported once (kube's Warning event KubernetesDefaultServiceCIDRInconsistent) and
//   never overwritten; Ready=False set by someone else is reported once (a Warning event with
//   the condition's reason) and left alone; no Ready condition (or Unknown) gets Ready=True with
//   message "Kubernetes default Service CIDR is ready" by server-side apply.
// Failures to create, upgrade or set the status are Warning events KubernetesDefaultServiceCIDRError
// with kube's messages; as in kube, only a failed create fails the sync (the 10 s loop tries again).
// It never deletes the object and never touches its finalizer (the status controller does).

import { cloneJson } from '../apimachinery/json-value.js';
import { internalContext, type Logger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import type { RestStorage } from '../registry/rest-storage.js';
import type { Clock, TimerHandle } from './clock.js';
import { Informer } from './informer.js';
import {
  CONDITION_READY,
  CONTROLLER_USER,
  DEFAULT_SERVICE_CIDR_NAME,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_KIND,
  findCondition,
  rfc3339,
  type ServiceCIDRObject,
} from './service-cidr-api.js';
import { applyStatusCondition } from './service-cidr-status-controller.js';
import { runWorker } from './worker.js';
import type { EventRecorder } from './events/event-recorder.js';
import { WorkQueue } from './work-queue.js';
import type { BackoffOptions } from '../apimachinery/backoff.js';

export const DEFAULT_CONTROLLER_NAME = 'kubernetes-service-cidr-controller';
export const DEFAULT_READY_MESSAGE = 'Kubernetes default Service CIDR is ready';
/** kube's DefaultEndpointReconcilerInterval. */
export const DEFAULT_SYNC_INTERVAL_MS = 10_000;

export interface DefaultServiceCIDRControllerOptions {
  main: RestStorage<ServiceCIDRObject>;
  status: RestStorage<ServiceCIDRObject>;
  /** Canonical network CIDRs from --service-cluster-ip-range, primary first (it sets the default family). */
  cidrs: readonly string[];
  /** Where kube's events are recorded. */
  recorder?: EventRecorder;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
  backoff?: BackoffOptions;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[]): boolean => (a ?? []).length === b.length && b.every((x, i) => a![i] === x);

/** Go's %v (and %s) of a []string: `[a b]`. */
const goList = (xs: readonly string[] | undefined): string => `[${(xs ?? []).join(' ')}]`;

/** A 409 is this controller's own optimistic check (a newer version exists): retried at once, not reported. */
const isConflict = (err: unknown): boolean => isStatusError(err) && err.code === 409;

export class DefaultServiceCIDRController {
  readonly informer: Informer<ServiceCIDRObject>;
  private readonly queue: WorkQueue;
  private readonly ctx: RequestContext;
  private worker: Promise<void> | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private reportedMismatch = false;
  private reportedNotReady = false;
  private firstSuccess!: () => void;
  /** Resolves after the first successful sync (kube holds readiness until then). */
  readonly initialized: Promise<void> = new Promise((r) => (this.firstSuccess = r));

  constructor(private readonly o: DefaultServiceCIDRControllerOptions) {
    this.queue = new WorkQueue(o.clock, { backoff: o.backoff });
    this.ctx = internalContext(CONTROLLER_USER, o.logger, { resource: 'servicecidrs' });
    const poke = (): void => this.queue.add(DEFAULT_SERVICE_CIDR_NAME);
    this.informer = new Informer({
      source: o.main,
      user: CONTROLLER_USER,
      clock: o.clock,
      logger: o.logger,
      fieldSelector: `metadata.name=${DEFAULT_SERVICE_CIDR_NAME}`,
      handlers: { onAdd: poke, onUpdate: poke, onDelete: poke },
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
    this.worker ??= runWorker(this.queue, () => this.syncAndMark(), this.o.logger, Number.POSITIVE_INFINITY);
    this.queue.add(DEFAULT_SERVICE_CIDR_NAME);
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.queue.shutDown();
    this.firstSuccess();
    await this.informer.stop();
    await this.worker;
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.after(this.o.intervalMs ?? DEFAULT_SYNC_INTERVAL_MS, () => {
      this.queue.add(DEFAULT_SERVICE_CIDR_NAME);
      this.tick();
    });
  }

  private async syncAndMark(): Promise<void> {
    await this.sync();
    this.firstSuccess();
  }

  async sync(): Promise<void> {
    const cidrs = this.o.cidrs;
    const existing = this.informer.get(DEFAULT_SERVICE_CIDR_NAME);
    if (existing) {
      const stored = existing.spec?.cidrs ?? [];
      if (cidrs.length === 2 && stored.length === 1 && stored[0] === cidrs[0] && !existing.metadata.deletionTimestamp) {
        await this.upgradeToDualStack(existing);
        return;
      }
      await this.syncStatus(existing);
      return;
    }
    let created: ServiceCIDRObject;
    try {
      this.o.logger.info({ cidrs }, 'creating the default ServiceCIDR');
      created = await this.o.main.create(
        this.ctx,
        { apiVersion: SERVICE_CIDR_API_VERSION, kind: SERVICE_CIDR_KIND, metadata: { name: DEFAULT_SERVICE_CIDR_NAME }, spec: { cidrs: [...cidrs] } },
        { fieldManager: DEFAULT_CONTROLLER_NAME },
      );
    } catch (err) {
      // Another replica created it first: the informer will bring it, and a sync with it.
      if (isStatusError(err) && err.status.reason === 'AlreadyExists') return;
      this.o.logger.warn({ err }, 'the default ServiceCIDR can not be created');
      // kube reports it about the object client-go hands back from a failed create: an empty one.
      this.o.recorder?.eventf({ apiVersion: SERVICE_CIDR_API_VERSION, kind: SERVICE_CIDR_KIND, metadata: {} }, 'Warning', 'KubernetesDefaultServiceCIDRError', 'The default ServiceCIDR can not be created');
      throw err;
    }
    await this.syncStatus(created);
  }

  private async upgradeToDualStack(existing: ServiceCIDRObject): Promise<void> {
    this.o.logger.info({ from: existing.spec?.cidrs, to: this.o.cidrs }, 'updating the default ServiceCIDR from single-stack to dual-stack');
    try {
      // Conditional on the version seen: a concurrent change makes this a 409, retried on fresh data.
      await this.o.main.update(this.ctx, DEFAULT_SERVICE_CIDR_NAME, () => ({ ...cloneJson(existing), spec: { ...existing.spec, cidrs: [...this.o.cidrs] } }), {
        fieldManager: DEFAULT_CONTROLLER_NAME,
      });
    } catch (err) {
      if (isConflict(err)) throw err;
      this.o.logger.warn({ err, cidrs: this.o.cidrs }, 'the default ServiceCIDR can not be upgraded to dual-stack');
      const message = `The default ServiceCIDR can not be upgraded from ${this.o.cidrs[0]} to dual stack ${goList(this.o.cidrs)} : ${err instanceof Error ? err.message : String(err)}`;
      this.o.recorder?.eventf(existing, 'Warning', 'KubernetesDefaultServiceCIDRError', message);
    }
  }

  private async syncStatus(obj: ServiceCIDRObject): Promise<void> {
    // Deletion belongs to the status controller.
    if (obj.metadata.deletionTimestamp) return;
    if (!sameList(obj.spec?.cidrs, this.o.cidrs)) {
      if (!this.reportedMismatch) {
        this.reportedMismatch = true;
        this.o.logger.warn(
          { serviceCIDR: obj.spec?.cidrs ?? [], flags: this.o.cidrs },
          `Inconsistent ServiceCIDR status for ${obj.metadata.name}, controller configuration: ${goList(this.o.cidrs)}, ServiceCIDR configuration: ${goList(obj.spec?.cidrs)}. Configure the flags to match current ServiceCIDR or manually delete it.`,
        );
        this.o.recorder?.eventf(obj, 'Warning', 'KubernetesDefaultServiceCIDRInconsistent', `The default ServiceCIDR ${goList(obj.spec?.cidrs)} does not match the controller flag configurations ${goList(this.o.cidrs)}`);
      }
      return;
    }
    const ready = findCondition(obj, CONDITION_READY);
    if (ready?.status === 'False') {
      if (!this.reportedNotReady) {
        this.reportedNotReady = true;
        this.o.logger.warn({ reason: ready.reason, message: ready.message }, "Default ServiceCIDR condition Ready is False, but controller configuration matches. Please validate your cluster's network configuration.");
        this.o.recorder?.eventf(obj, 'Warning', ready.reason, `Configuration matches, but ${ready.message}`);
      }
      return;
    }
    if (ready?.status === 'True') return;
    try {
      await applyStatusCondition(
        this.o.status,
        this.ctx,
        obj,
        { type: CONDITION_READY, status: 'True', lastTransitionTime: rfc3339(this.o.clock.now()), reason: '', message: DEFAULT_READY_MESSAGE },
        DEFAULT_CONTROLLER_NAME,
      );
    } catch (err) {
      if (isConflict(err)) throw err;
      this.o.logger.info({ err }, 'error updating default ServiceCIDR status');
      this.o.recorder?.eventf(obj, 'Warning', 'KubernetesDefaultServiceCIDRError', 'The default ServiceCIDR Status can not be set to Ready=True');
    }
  }
}
