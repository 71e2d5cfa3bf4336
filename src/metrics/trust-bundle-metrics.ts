// The ClusterTrustBundle expiry gauge: each bundle's earliest certificate notAfter, in Unix
// seconds (the unit of kube's kubelet_certificate_manager_client_expiration_seconds), so an
// alert can fire before a trust anchor runs out. One series per stored ClusterTrustBundle,
// labelled by name and signer: bounded by the objects stored, as kube's per-object series are,
// because a series is removed when its bundle is deleted or stops holding a certificate.
// Shaped like the controllers' TrustBundleExpiryObserver (main passes it there); this layer
// does not import the controllers.

import { Gauge, type Registry } from 'prom-client';

export const TRUST_BUNDLE_EXPIRY_METRIC = 'apiserver_clustertrustbundle_earliest_certificate_expiration_seconds';

export class TrustBundleExpiryMetrics {
  private readonly gauge: Gauge<'name' | 'signer'>;
  /** The signer label of each bundle's series (to remove it by name). */
  private readonly signers = new Map<string, string>();

  constructor(registry: Registry) {
    this.gauge = new Gauge({
      name: TRUST_BUNDLE_EXPIRY_METRIC,
      help: 'Earliest notAfter of the certificates in each ClusterTrustBundle, in seconds since January 1, 1970 UTC; one series per ClusterTrustBundle holding a certificate (signer is empty for bundles without signerName).',
      labelNames: ['name', 'signer'],
      registers: [registry],
    });
  }

  observe(bundle: { name: string; signerName: string }, earliestNotAfter: Date | undefined): void {
    const previous = this.signers.get(bundle.name);
    // signerName is immutable, but a re-created bundle of the same name may name another signer.
    if (previous !== undefined && (previous !== bundle.signerName || !earliestNotAfter)) this.forget(bundle.name);
    if (!earliestNotAfter) return;
    this.signers.set(bundle.name, bundle.signerName);
    this.gauge.set({ name: bundle.name, signer: bundle.signerName }, Math.floor(earliestNotAfter.getTime() / 1000));
  }

  forget(name: string): void {
    const signer = this.signers.get(name);
    if (signer === undefined) return;
    this.signers.delete(name);
    this.gauge.remove({ name, signer });
  }
}
