// The ValidatingWebhookConfiguration resource definition (admissionregistration.k8s.io/v1): defaults applied to every
// webhook, generation moved by changes to the webhooks, a resourceVersion required on update.

import { deepEqual } from '../../apimachinery/json-value.js';
import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { defineStrategy } from '../../registry/strategy.js';
import { defaultWebhook } from '../admissionregistration/defaults.js';
import { VALIDATING_WEBHOOK } from '../admissionregistration/field-orders.js';
import { admissionSchemas, names } from '../admissionregistration/schemas.js';
import { webhookConfigurationColumns } from '../admissionregistration/tables.js';
import { GROUP, VERSION, type ValidatingWebhookConfiguration } from '../admissionregistration/types.js';
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from '../admissionregistration/webhook-validation.js';

const strategy = defineStrategy<ValidatingWebhookConfiguration>({
  prepareForCreate: (_ctx, obj) => {
    for (const w of obj.webhooks ?? []) defaultWebhook(w, false);
    obj.metadata.generation = 1;
  },
  prepareForUpdate: (_ctx, obj, old) => {
    for (const w of obj.webhooks ?? []) defaultWebhook(w, false);
    const generation = old.metadata.generation ?? 0;
    obj.metadata.generation = deepEqual(JSON.parse(JSON.stringify(obj.webhooks ?? null)), old.webhooks ?? null) ? generation : generation + 1;
  },
  validate: (_ctx, obj) => validateWebhookConfiguration(obj, false),
  validateUpdate: (_ctx, obj, old) => validateWebhookConfigurationUpdate(obj, old, false),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
});

export const validatingWebhookConfigurations: ResourceDefinition<ValidatingWebhookConfiguration> = {
  group: GROUP,
  version: VERSION,
  kind: 'ValidatingWebhookConfiguration',
  listKind: 'ValidatingWebhookConfigurationList',
  plural: 'validatingwebhookconfigurations',
  singular: 'validatingwebhookconfiguration',
  scope: 'Cluster',
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy,
  subresources: [],
  table: webhookConfigurationColumns,
  schemas: admissionSchemas,
  schemaName: names.vwc,
  listSchemaName: names.vwcList,
  fieldOrder: kindOrder(['webhooks', VALIDATING_WEBHOOK]),
  zeroValue: () => ({ metadata: { creationTimestamp: null } }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};
