// networking.platform.io/v1 IPAddress, as on the wire (kube's networking/v1 IPAddress).

import type { KubeObject } from '../../apimachinery/object-meta.js';

export const GROUP = 'networking.platform.io';
export const VERSION = 'v1';
export const KIND = 'IPAddress';

/** The object an address is allocated to (a Service, for kube's allocator). */
export interface ParentReference {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

export interface IPAddressSpec {
  parentRef?: ParentReference | null;
}

export interface IPAddress extends KubeObject {
  spec?: IPAddressSpec;
}
