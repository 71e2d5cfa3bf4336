// OpenAPI component schemas of networking.platform.io/v1 (descriptions in our words).

import { CONDITION, LIST_META, OBJECT_META, typeMetaProperties } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { GROUP, KIND, VERSION } from './types.js';

const PREFIX = 'io.platform.networking.v1';
export const SC_SCHEMA = `${PREFIX}.ServiceCIDR`;
export const SC_LIST_SCHEMA = `${PREFIX}.ServiceCIDRList`;
const SC_SPEC_SCHEMA = `${PREFIX}.ServiceCIDRSpec`;
const SC_STATUS_SCHEMA = `${PREFIX}.ServiceCIDRStatus`;

const typeMeta = (kind: string): Record<string, Schema> => typeMetaProperties(`${GROUP}/${VERSION}`, kind);

export const serviceCIDRSchemas: SchemaRegistry = {
  [SC_SCHEMA]: {
    type: 'object',
    description: 'ServiceCIDR defines a range of IP addresses in CIDR notation (IPv4 or IPv6) from which cluster IPs of services are allocated.',
    properties: {
      ...typeMeta(KIND),
      metadata: { allOf: [refTo(OBJECT_META)], description: 'Standard object metadata.' },
      spec: { allOf: [refTo(SC_SPEC_SCHEMA)], default: {}, description: 'The desired ranges.' },
      status: { allOf: [refTo(SC_STATUS_SCHEMA)], default: {}, description: 'The observed state; written through the status subresource.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: KIND }],
  },
  [SC_SPEC_SCHEMA]: {
    type: 'object',
    description: 'The ranges of a ServiceCIDR.',
    properties: {
      cidrs: {
        type: 'array',
        description: 'Up to two CIDR blocks, at most one per IP family, in canonical form (e.g. "10.96.0.0/16" or "2001:db8::/64"). Immutable, except that a single-stack ServiceCIDR may gain a second family.',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [SC_STATUS_SCHEMA]: {
    type: 'object',
    description: 'The observed state of a ServiceCIDR.',
    properties: {
      conditions: {
        type: 'array',
        description: 'The current state of the ServiceCIDR, one condition per type.',
        items: { allOf: [refTo(CONDITION)], default: {} },
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'type',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  },
  [SC_LIST_SCHEMA]: {
    type: 'object',
    description: 'A collection of ServiceCIDR objects.',
    required: ['items'],
    properties: {
      ...typeMeta(`${KIND}List`),
      items: { type: 'array', description: 'The ServiceCIDRs.', items: { allOf: [refTo(SC_SCHEMA)], default: {} } },
      metadata: { allOf: [refTo(LIST_META)], description: 'Standard list metadata.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: `${KIND}List` }],
  },
};
