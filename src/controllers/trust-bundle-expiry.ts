// Reports each ClusterTrustBundle's earliest certificate expiry to an observer (a metrics
// gauge, so expiring trust anchors can be alerted on), kept current by an informer: adds and
// content changes report, deletions forget. The expiry computation is passed in (the resource
// package owns certificate parsing; this layer does not import it). Read-only and per replica:
// every replica reports the same values for its own /metrics.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { Logger } from '../apimachinery/request-context.js';
import type { RestStorage } from '../registry/rest-storage.js';
import type { Clock } from './clock.js';
import { Informer } from './informer.js';
import { CONTROLLER_USER } from './service-cidr-api.js';

export interface TrustBundleObject extends KubeObject {
  spec?: { signerName?: string; trustBundle?: string };
}

export interface TrustBundleExpiryObserver {
  /** The bundle's earliest notAfter, or undefined when it holds no parseable certificate. */
  observe(bundle: { name: string; signerName: string }, earliestNotAfter: Date | undefined): void;
  /** The bundle was deleted. */
  forget(name: string): void;
}

export const noopExpiryObserver: TrustBundleExpiryObserver = { observe() {}, forget() {} };

export interface TrustBundleExpiryReporterOptions {
  source: RestStorage<TrustBundleObject>;
  earliestExpiry: (trustBundle: string) => Date | undefined;
  observer: TrustBundleExpiryObserver;
  clock: Clock;
  logger: Logger;
}

export class TrustBundleExpiryReporter {
  readonly informer: Informer<TrustBundleObject>;

  constructor(o: TrustBundleExpiryReporterOptions) {
    const report = (obj: TrustBundleObject): void =>
      o.observer.observe({ name: obj.metadata.name!, signerName: obj.spec?.signerName ?? '' }, o.earliestExpiry(obj.spec?.trustBundle ?? ''));
    this.informer = new Informer({
      source: o.source,
      user: CONTROLLER_USER,
      clock: o.clock,
      logger: o.logger,
      // Only the name, the signer and the bundle are read: the rest is not kept per bundle.
      transform: (ctb) => ({
        apiVersion: ctb.apiVersion,
        kind: ctb.kind,
        metadata: { name: ctb.metadata.name, resourceVersion: ctb.metadata.resourceVersion },
        spec: { signerName: ctb.spec?.signerName, trustBundle: ctb.spec?.trustBundle },
      }),
      handlers: {
        onAdd: report,
        onUpdate: (old, obj) => {
          if (old.spec?.trustBundle !== obj.spec?.trustBundle) report(obj);
        },
        onDelete: (obj) => o.observer.forget(obj.metadata.name!),
      },
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
