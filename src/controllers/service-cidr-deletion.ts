// The one decision "may this ServiceCIDR's range go now?", kept behind a single function so an
// IP allocator can plug in later.
//
// kube-controller-manager answers yes when every CIDR of the object is also covered by another
// ServiceCIDR (a larger or equal range elsewhere), or otherwise when no allocated IPAddress
// (label managed-by=ipallocator.k8s.io) would be left with only this range containing it. This
// server has no Services and so allocates no IPAddresses: both paths answer yes. An allocator
// replaces `noAllocatedAddresses` with its own check.

import type { ServiceCIDRObject } from './service-cidr-api.js';

export interface ServiceCIDRDeletionCheck {
  /** True when removing `serviceCIDR` would orphan no allocated address. `all` is every known ServiceCIDR. */
  canDelete(serviceCIDR: ServiceCIDRObject, all: readonly ServiceCIDRObject[]): Promise<boolean> | boolean;
}

export const noAllocatedAddresses: ServiceCIDRDeletionCheck = { canDelete: () => true };
