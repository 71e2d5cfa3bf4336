// The IPAddress resource definition (cluster-scoped, no subresources).

import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { IP_LIST_SCHEMA, IP_SCHEMA, ipAddressSchemas } from './openapi.js';
import { ipAddressStrategy } from './strategy.js';
import { ipAddressColumns } from './table.js';
import { GROUP, KIND, VERSION, type IPAddress } from './types.js';

export const ipAddresses: ResourceDefinition<IPAddress> = {
  group: GROUP,
  version: VERSION,
  kind: KIND,
  listKind: `${KIND}List`,
  plural: 'ipaddresses',
  singular: 'ipaddress',
  scope: 'Cluster',
  shortNames: ['ip'],
  categories: [],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy: ipAddressStrategy,
  subresources: [],
  table: ipAddressColumns,
  schemas: ipAddressSchemas,
  schemaName: IP_SCHEMA,
  listSchemaName: IP_LIST_SCHEMA,
  fieldOrder: kindOrder(['spec', [['parentRef', ['group', 'resource', 'namespace', 'name']]]]),
  zeroValue: () => ({ metadata: { creationTimestamp: null }, spec: {} }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  // kube's IPAddress strategy generates no names: a generateName is the name as it is.
  generateName: (prefix) => prefix,
};
