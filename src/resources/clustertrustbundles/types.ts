// certificates.platform.io/v1beta1 ClusterTrustBundle, as on the wire.

import type { KubeObject } from '../../apimachinery/object-meta.js';

export const GROUP = 'certificates.platform.io';
export const VERSION = 'v1beta1';
export const KIND = 'ClusterTrustBundle';

export interface ClusterTrustBundleSpec {
  signerName?: string;
  trustBundle: string;
}

export interface ClusterTrustBundle extends KubeObject {
  spec: ClusterTrustBundleSpec;
}

/** Upstream MaxTrustBundleSize: 1 MiB of UTF-8 (exactly 1 MiB is allowed). */
export const MAX_TRUST_BUNDLE_BYTES = 1024 * 1024;
