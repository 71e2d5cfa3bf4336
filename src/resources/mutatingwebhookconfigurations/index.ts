// The MutatingWebhookConfiguration resource definition (admissionregistration.k8s.io/v1), built
// as its validating twin is (admissionregistration/webhook-configuration-definition.ts).

import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { MutatingWebhookConfiguration } from '../admissionregistration/types.js';
import { webhookConfigurationDefinition } from '../admissionregistration/webhook-configuration-definition.js';

export const mutatingWebhookConfigurations: ResourceDefinition<MutatingWebhookConfiguration> = webhookConfigurationDefinition<MutatingWebhookConfiguration>(true);
