// The ValidatingWebhookConfiguration resource definition (admissionregistration.k8s.io/v1), built
// as its mutating twin is (admissionregistration/webhook-configuration-definition.ts).

import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { ValidatingWebhookConfiguration } from '../admissionregistration/types.js';
import { webhookConfigurationDefinition } from '../admissionregistration/webhook-configuration-definition.js';

export const validatingWebhookConfigurations: ResourceDefinition<ValidatingWebhookConfiguration> = webhookConfigurationDefinition<ValidatingWebhookConfiguration>(false);
