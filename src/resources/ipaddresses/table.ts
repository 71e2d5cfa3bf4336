// `kubectl get ipaddresses` columns, as kube's printer makes them: Name and ParentRef declared,
// and an Age cell in every row without a column of its own (kubectl shows the declared ones).

import { translateTimestampSince } from '../../apimachinery/duration.js';
import type { TableColumn } from '../../registry/resource-definition.js';
import { nameColumn } from '../name-column.js';
import type { IPAddress, ParentReference } from './types.js';

/** `<resource>[.<group>][/<namespace>]/<name>`, lower-cased; `<none>` without a parent. */
export function parentRefText(ref: ParentReference | null | undefined): string {
  if (!ref) return '<none>';
  const resource = ref.group ? `${ref.resource ?? ''}.${ref.group}` : (ref.resource ?? '');
  return `${resource.toLowerCase()}${ref.namespace ? `/${ref.namespace}` : ''}/${ref.name ?? ''}`;
}

export const ipAddressColumns: readonly TableColumn<IPAddress>[] = [
  nameColumn<IPAddress>(),
  {
    name: 'ParentRef',
    type: 'string',
    format: '',
    description: 'The object this address is allocated to.',
    priority: 0,
    cell: (o) => parentRefText(o.spec?.parentRef),
  },
  {
    name: 'Age',
    type: 'string',
    format: '',
    description: 'CreationTimestamp is the time when this object was created.',
    priority: 0,
    undeclared: true,
    cell: (o, now) => translateTimestampSince(o.metadata.creationTimestamp, now),
  },
];
