// The MutatingWebhookConfiguration resource definition (admissionregistration.k8s.io/v1): defaults applied to every
// webhook, generation moved by changes to the webhooks, a resourceVersion required on update.

import { deepEqual } from '../../apimachinery/json-value.js';
import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { defineStrategy } from '../../registry/strategy.js';
import { defaultWebhook } from '../admissionregistration/defaults.js';
import { MUTATING_WEBHOOK } from '../admissionregistration/field-orders.js';
import { admissionSchemas, names } from '../admissionregistration/schemas.js';
import { webhookConfigurationColumns } from '../admissionregistration/tables.js';
import { GROUP, VERSION, type MutatingWebhookConfiguration } from '../admissionregistration/types.js';
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from '../admissionregistration/webhook-validation.js';

const strategy = defineStrategy<MutatingWebhookConfiguration>({
  prepareForCreate: (_ctx, obj) => {
    for (const w of obj.webhooks ?? []) defaultWebhook(w, true);
    obj.metadata.generation = 1;
  },
  prepareForUpdate: (_ctx, obj, old) => {
    for (const w of obj.webhooks ?? []) defaultWebhook(w, true);
    const generation = old.metadata.generation ?? 0;
    obj.metadata.generation = deepEqual(JSON.parse(JSON.stringify(obj.webhooks ?? null)), old.webhooks ?? null) ? generation : generation + 1;
  },
  validate: (_ctx, obj) => validateWebhookConfiguration(obj, true),
  validateUpdate: (_ctx, obj, old) => validateWebhookConfigurationUpdate(obj, old, true),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
});

export const mutatingWebhookConfigurations: ResourceDefinition<MutatingWebhookConfiguration> = {
  group: GROUP,
  version: VERSION,
  kind: 'MutatingWebhookConfiguration',
  listKind: 'MutatingWebhookConfigurationList',
  plural: 'mutatingwebhookconfigurations',
  singular: 'mutatingwebhookconfiguration',
  scope: 'Cluster',
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy,
  subresources: [],
  table: webhookConfigurationColumns,
  schemas: admissionSchemas,
  schemaName: names.mwc,
  listSchemaName: names.mwcList,
  fieldOrder: kindOrder(['webhooks', MUTATING_WEBHOOK]),
  zeroValue: () => ({ metadata: { creationTimestamp: null } }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};
