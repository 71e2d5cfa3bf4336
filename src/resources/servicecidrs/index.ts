// The ServiceCIDR resource definition, with its /status subresource.

import { CONDITION_ORDER, kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { SC_LIST_SCHEMA, SC_SCHEMA, serviceCIDRSchemas } from './openapi.js';
import { serviceCIDRStatusStrategy, serviceCIDRStrategy } from './strategy.js';
import { serviceCIDRColumns } from './table.js';
import { GROUP, KIND, VERSION, type ServiceCIDR } from './types.js';

export const serviceCIDRs: ResourceDefinition<ServiceCIDR> = {
  group: GROUP,
  version: VERSION,
  kind: KIND,
  listKind: `${KIND}List`,
  plural: 'servicecidrs',
  singular: 'servicecidr',
  scope: 'Cluster',
  shortNames: ['scidr'],
  categories: [],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy: serviceCIDRStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: serviceCIDRStatusStrategy }],
  table: serviceCIDRColumns,
  schemas: serviceCIDRSchemas,
  schemaName: SC_SCHEMA,
  listSchemaName: SC_LIST_SCHEMA,
  fieldOrder: kindOrder(['spec', ['cidrs']], ['status', [['conditions', CONDITION_ORDER]]]),
  zeroValue: () => ({ metadata: { creationTimestamp: null }, spec: {}, status: {} }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};
