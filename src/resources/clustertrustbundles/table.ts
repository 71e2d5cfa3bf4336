// `kubectl get clustertrustbundles` columns, as upstream prints them: Name and SignerName (no Age).

import type { TableColumn } from '../../registry/resource-definition.js';
import type { ClusterTrustBundle } from './types.js';

export const clusterTrustBundleColumns: readonly TableColumn<ClusterTrustBundle>[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace; cluster-scoped objects are unique in the cluster. Cannot be updated.',
    priority: 0,
    cell: (o) => o.metadata.name ?? '',
  },
  {
    name: 'SignerName',
    type: 'string',
    format: '',
    description: 'The name of the signer this bundle holds trust anchors for, if any.',
    priority: 0,
    cell: (o) => o.spec?.signerName || '<none>',
  },
];
