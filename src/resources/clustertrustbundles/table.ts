// `kubectl get clustertrustbundles` columns, as upstream prints them: Name and SignerName (no Age).

import type { TableColumn } from '../../registry/resource-definition.js';
import { nameColumn } from '../name-column.js';
import type { ClusterTrustBundle } from './types.js';

export const clusterTrustBundleColumns: readonly TableColumn<ClusterTrustBundle>[] = [
  nameColumn<ClusterTrustBundle>(),
  {
    name: 'SignerName',
    type: 'string',
    format: '',
    description: 'The name of the signer this bundle holds trust anchors for, if any.',
    priority: 0,
    cell: (o) => o.spec?.signerName || '<none>',
  },
];
