// `kubectl get servicecidrs` columns, as upstream prints them: Name, CIDRs, Age.

import { translateTimestampSince } from '../../apimachinery/duration.js';
import type { TableColumn } from '../../registry/resource-definition.js';
import { nameColumn } from '../name-column.js';
import type { ServiceCIDR } from './types.js';

export const serviceCIDRColumns: readonly TableColumn<ServiceCIDR>[] = [
  nameColumn<ServiceCIDR>(),
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
