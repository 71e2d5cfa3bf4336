// Every kind this server serves.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { clusterTrustBundles } from './clustertrustbundles/index.js';
import { coreEvents, eventsV1Events } from './events/index.js';
import { ipAddresses } from './ipaddresses/index.js';
import { mutatingWebhookConfigurations } from './mutatingwebhookconfigurations/index.js';
import { serviceCIDRs } from './servicecidrs/index.js';
import { validatingAdmissionPolicies } from './validatingadmissionpolicies/index.js';
import { validatingAdmissionPolicyBindings } from './validatingadmissionpolicybindings/index.js';
import { validatingWebhookConfigurations } from './validatingwebhookconfigurations/index.js';

export const allResources: readonly ResourceDefinition<KubeObject>[] = [
  clusterTrustBundles as unknown as ResourceDefinition<KubeObject>,
  serviceCIDRs as unknown as ResourceDefinition<KubeObject>,
  ipAddresses as unknown as ResourceDefinition<KubeObject>,
  coreEvents as unknown as ResourceDefinition<KubeObject>,
  eventsV1Events as unknown as ResourceDefinition<KubeObject>,
  validatingAdmissionPolicies as unknown as ResourceDefinition<KubeObject>,
  validatingAdmissionPolicyBindings as unknown as ResourceDefinition<KubeObject>,
  validatingWebhookConfigurations as unknown as ResourceDefinition<KubeObject>,
  mutatingWebhookConfigurations as unknown as ResourceDefinition<KubeObject>,
];
