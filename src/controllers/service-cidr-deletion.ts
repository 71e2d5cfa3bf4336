// The one decision "may this ServiceCIDR's range go now?", kube-controller-manager's
// canDeleteCIDR (pkg/controller/servicecidrs): yes when every CIDR of the object is also
// contained in another ServiceCIDR (a larger or the same range; kube counts one being deleted
// too); otherwise no while any IPAddress the apiserver's allocator manages (label
// `ipaddress.kubernetes.io/managed-by=ipallocator.k8s.io`) of that CIDR's family (label
// `ipaddress.kubernetes.io/ip-family`) is contained by this ServiceCIDR alone (kube's
// PrefixContainsIP: not the network address, nor an IPv4 broadcast address).

import type { Logger } from '../apimachinery/request-context.js';
import type { CidrIndex } from './cidr-index.js';
import { parseAddr, parsePrefix } from './net-prefix.js';
import { IPALLOCATOR_MANAGER, LABEL_IP_FAMILY, LABEL_MANAGED_BY, type IPAddressObject, type ServiceCIDRObject } from './service-cidr-api.js';

export interface ServiceCIDRDeletionCheck {
  /** True when removing `serviceCIDR` would orphan no allocated address. `ranges` holds every known ServiceCIDR. */
  canDelete(serviceCIDR: ServiceCIDRObject, ranges: CidrIndex): Promise<boolean> | boolean;
}

/** For a server without IPAddresses: nothing can be orphaned. */
export const noAllocatedAddresses: ServiceCIDRDeletionCheck = { canDelete: () => true };

/** kube's convertToV1IPFamily(IPFamilyOfCIDRString). */
const familyLabel = (cidr: string): string => {
  const p = parsePrefix(cidr);
  return p ? (p.family === 4 ? 'IPv4' : 'IPv6') : '';
};

/** The check over the known IPAddresses (an informer's). */
export function ipAddressesDeletionCheck(addresses: () => readonly IPAddressObject[], logger: Logger): ServiceCIDRDeletionCheck {
  return {
    canDelete(serviceCIDR, ranges) {
      const name = serviceCIDR.metadata.name!;
      let hasParent = true;
      for (const cidr of serviceCIDR.spec?.cidrs ?? []) {
        const prefix = parsePrefix(cidr);
        if (!prefix) continue;
        const containing = ranges.containing(prefix);
        if (containing.size === 0 || (containing.size === 1 && containing.has(name))) hasParent = false;
      }
      if (hasParent) {
        logger.info({ serviceCIDR: name }, 'Deleting ServiceCIDR contained in other ServiceCIDR');
        return true;
      }
      for (const cidr of serviceCIDR.spec?.cidrs ?? []) {
        const family = familyLabel(cidr);
        for (const ip of addresses()) {
          const labels = ip.metadata.labels ?? {};
          if (labels[LABEL_IP_FAMILY] !== family || labels[LABEL_MANAGED_BY] !== IPALLOCATOR_MANAGER) continue;
          const address = parseAddr(ip.metadata.name ?? '');
          if (!address) continue;
          const containing = ranges.containingAddress(address);
          if (containing.size === 1 && containing.has(name)) {
            logger.info({ serviceCIDR: name, ipAddress: ip.metadata.name }, 'Deleting ServiceCIDR blocked by IP address');
            return false;
          }
        }
      }
      logger.info({ serviceCIDR: name }, 'Deleting ServiceCIDR no longer have orphan IPs');
      return true;
    },
  };
}
