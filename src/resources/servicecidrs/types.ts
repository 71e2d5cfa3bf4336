// networking.platform.io/v1 ServiceCIDR, as on the wire.

import type { Condition, KubeObject } from '../../apimachinery/object-meta.js';

export const GROUP = 'networking.platform.io';
export const VERSION = 'v1';
export const KIND = 'ServiceCIDR';

export interface ServiceCIDRSpec {
  cidrs?: string[];
}

export interface ServiceCIDRStatus {
  conditions?: Condition[];
}

export interface ServiceCIDR extends KubeObject {
  spec?: ServiceCIDRSpec;
  status?: ServiceCIDRStatus;
}
