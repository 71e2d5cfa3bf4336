// `kubectl get servicecidrs` columns, as upstream prints them: Name, CIDRs, Age.

import { translateTimestampSince } from '../../apimachinery/duration.js';
import type { TableColumn } from '../../registry/resource-definition.js';
import type { ServiceCIDR } from './types.js';

export const serviceCIDRColumns: readonly TableColumn<ServiceCIDR>[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace; cluster-scoped objects are unique in the cluster. Cannot be updated.',
    priority: 0,
    cell: (o) => o.metadata.name ?? '',
  },
  {
    name: 'CIDRs',
    type: 'string',
    format: '',
    description: 'The IP ranges, in CIDR notation, from which cluster IPs are allocated.',
    priority: 0,
    cell: (o) => (o.spec?.cidrs ?? []).join(','),
  },
  {
    name: 'Age',
    type: 'string',
    format: '',
    description: 'CreationTimestamp is the time when this object was created.',
    priority: 0,
    cell: (o, now) => translateTimestampSince(o.metadata.creationTimestamp, now),
  },
];
