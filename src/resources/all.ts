// Every kind this server serves.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { clusterTrustBundles } from './clustertrustbundles/index.js';
import { serviceCIDRs } from './servicecidrs/index.js';

export const allResources: readonly ResourceDefinition<KubeObject>[] = [
  clusterTrustBundles as unknown as ResourceDefinition<KubeObject>,
  serviceCIDRs as unknown as ResourceDefinition<KubeObject>,
];
