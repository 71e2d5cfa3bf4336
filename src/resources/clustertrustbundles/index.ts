// The ClusterTrustBundle resource definition: everything the server needs to serve the kind.

import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { CTB_LIST_SCHEMA, CTB_SCHEMA, clusterTrustBundleSchemas } from './openapi.js';
import { clusterTrustBundleStrategy } from './strategy.js';
import { clusterTrustBundleColumns } from './table.js';
import { GROUP, KIND, VERSION, type ClusterTrustBundle } from './types.js';

export const clusterTrustBundles: ResourceDefinition<ClusterTrustBundle> = {
  group: GROUP,
  version: VERSION,
  kind: KIND,
  listKind: `${KIND}List`,
  plural: 'clustertrustbundles',
  singular: 'clustertrustbundle',
  scope: 'Cluster',
  shortNames: ['ctb'],
  categories: [],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy: clusterTrustBundleStrategy,
  subresources: [],
  table: clusterTrustBundleColumns,
  schemas: clusterTrustBundleSchemas,
  schemaName: CTB_SCHEMA,
  listSchemaName: CTB_LIST_SCHEMA,
  fieldOrder: kindOrder(['spec', ['signerName', 'trustBundle']]),
  zeroValue: () => ({ metadata: { creationTimestamp: null }, spec: { trustBundle: '' } }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'spec.signerName': o.spec?.signerName ?? '' }),
  unknownFieldLabelMessage: (label) => `field label not supported: ${label}`,
};
