// Starts the in-process controllers and stops them: what src/config/build-server.ts calls. Every replica runs
// them (each is idempotent and writes optimistically; see the controllers' headers).

import type { Logger } from '../apimachinery/request-context.js';
import type { RestStorage } from '../registry/rest-storage.js';
import { realClock, type Clock } from './clock.js';
import { DefaultServiceCIDRController } from './default-service-cidr-controller.js';
import { CONTROLLER_USER, type IPAddressObject, type ServiceCIDRObject } from './service-cidr-api.js';
import type { EventObject } from './events/event-api.js';
import { EventBroadcaster } from './events/event-recorder.js';
import { EventTTL } from './events/event-ttl.js';
import type { ServiceCIDRDeletionCheck } from './service-cidr-deletion.js';
import { ServiceCIDRStatusController } from './service-cidr-status-controller.js';
import { TrustBundleExpiryReporter, type TrustBundleExpiryReporterOptions } from './trust-bundle-expiry.js';

export interface ControllersOptions {
  serviceCIDRs: { main: RestStorage<ServiceCIDRObject>; status: RestStorage<ServiceCIDRObject> };
  /** The IPAddresses the status controller's deletion check reads. */
  ipAddresses?: RestStorage<IPAddressObject>;
  /** The core v1 Events API: the controllers' events are written there, and expire from it. */
  events?: RestStorage<EventObject>;
  /** --event-ttl: how long an event lives after its last write (0: events never expire). */
  eventTTLMs?: number;
  /** Canonical CIDRs of --service-cluster-ip-range, primary first. */
  serviceClusterIPRanges: readonly string[];
  /** Names of the controllers to run (kube-controller-manager's --controllers, resolved). */
  enabled: ReadonlySet<string>;
  logger: Logger;
  clock?: Clock;
  deletion?: ServiceCIDRDeletionCheck;
  /** When given, each ClusterTrustBundle's earliest expiry is reported (e.g. to a metrics gauge). */
  trustBundleExpiry?: Omit<TrustBundleExpiryReporterOptions, 'clock' | 'logger'>;
}

export interface RunningControllers {
  /** Resolves when the default ServiceCIDR was synced once (readiness waits for it). */
  initialized: Promise<void>;
  stop(): Promise<void>;
}

export const CONTROLLER_NAMES = ['kubernetes-service-cidr-controller', 'service-cidr-controller'] as const;

export async function startControllers(o: ControllersOptions): Promise<RunningControllers> {
  const clock = o.clock ?? realClock;
  const running: { stop(): Promise<void> }[] = [];
  // One recorder per controller, as each of kube's has its own broadcaster; the field manager is
  // the program kube runs it in (kube-apiserver's loopback client, kube-controller-manager).
  const recorderFor = (component: string, fieldManager: string): EventBroadcaster | undefined => {
    if (!o.events) return undefined;
    const r = new EventBroadcaster({ events: o.events, component, user: CONTROLLER_USER, fieldManager, clock, logger: o.logger.child({ controller: component, component: 'events' }) });
    running.push({ stop: () => r.shutdown() });
    return r;
  };
  let initialized = Promise.resolve();
  let stopped = false;
  // Only the default ServiceCIDR holds readiness (kube's poststarthook), and its informer reads one
  // key: it starts first and alone. The status controller and the expiry reporter list every
  // object of their kind (thousands at a restart: their decode and handlers were a third of a
  // restart's CPU) and start once it has synced, beside the serving server, as
  // kube-controller-manager's controllers sync beside kube-apiserver.
  if (o.enabled.has('kubernetes-service-cidr-controller')) {
    const c = new DefaultServiceCIDRController({
      ...o.serviceCIDRs,
      cidrs: o.serviceClusterIPRanges,
      recorder: recorderFor('kubernetes-service-cidr-controller', 'kube-apiserver'),
      clock,
      logger: o.logger.child({ controller: 'kubernetes-service-cidr-controller' }),
      // kube polls every 100 ms until the first sync succeeds, then every 10 s.
      backoff: { initialMs: 100, maxMs: 10_000 },
    });
    await c.start();
    running.push(c);
    initialized = c.initialized;
  }
  const startTheOthers = (): void => {
    if (stopped) return;
    if (o.enabled.has('service-cidr-controller')) {
      const c = new ServiceCIDRStatusController({
        ...o.serviceCIDRs,
        ipAddresses: o.ipAddresses,
        recorder: recorderFor('service-cidr-controller', 'kube-controller-manager'),
        clock,
        logger: o.logger.child({ controller: 'service-cidr-controller' }),
        deletion: o.deletion,
        resyncMs: 10 * 60_000,
      });
      void c.start();
      running.push(c);
    }
    // Always running (the storage's expiry of events in kube, not one of --controllers).
    if (o.events && o.eventTTLMs) {
      const ttl = new EventTTL({ events: o.events, ttlMs: o.eventTTLMs, user: CONTROLLER_USER, clock, logger: o.logger.child({ controller: 'event-ttl' }) });
      void ttl.start();
      running.push(ttl);
    }
    if (o.trustBundleExpiry) {
      const r = new TrustBundleExpiryReporter({ ...o.trustBundleExpiry, clock, logger: o.logger.child({ controller: 'trust-bundle-expiry' }) });
      void r.start();
      running.push(r);
    }
  };
  void initialized.then(() => setImmediate(startTheOthers));
  return {
    initialized,
    stop: async () => {
      stopped = true;
      await Promise.all(running.map((c) => c.stop()));
    },
  };
}
