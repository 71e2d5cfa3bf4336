// The resource definition both webhook configuration kinds share (admissionregistration.k8s.io/v1,
// as kube registers them apart with the same rules): defaults applied to every webhook,
// generation moved by changes to the webhooks, a resourceVersion required on update. The two
// differ in their kind's names, their schemas and field order, and the mutating webhook's
// reinvocationPolicy (its default and its validation).

import { deepEqual } from '../../apimachinery/json-value.js';
import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { defineStrategy } from '../../registry/strategy.js';
import { defaultWebhook } from './defaults.js';
import { MUTATING_WEBHOOK, VALIDATING_WEBHOOK } from './field-orders.js';
import { admissionSchemas, names } from './schemas.js';
import { webhookConfigurationColumns } from './tables.js';
import { GROUP, VERSION, type MutatingWebhookConfiguration, type ValidatingWebhookConfiguration } from './types.js';
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from './webhook-validation.js';

export function webhookConfigurationDefinition<T extends ValidatingWebhookConfiguration | MutatingWebhookConfiguration>(mutating: boolean): ResourceDefinition<T> {
  const strategy = defineStrategy<T>({
    prepareForCreate: (_ctx, obj) => {
      for (const w of obj.webhooks ?? []) defaultWebhook(w, mutating);
      obj.metadata.generation = 1;
    },
    prepareForUpdate: (_ctx, obj, old) => {
      for (const w of obj.webhooks ?? []) defaultWebhook(w, mutating);
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = deepEqual(JSON.parse(JSON.stringify(obj.webhooks ?? null)), old.webhooks ?? null) ? generation : generation + 1;
    },
    validate: (_ctx, obj) => validateWebhookConfiguration(obj, mutating),
    validateUpdate: (_ctx, obj, old) => validateWebhookConfigurationUpdate(obj, old, mutating),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
  });
  const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  return {
    group: GROUP,
    version: VERSION,
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    scope: 'Cluster',
    shortNames: [],
    categories: ['api-extensions'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    strategy,
    subresources: [],
    table: webhookConfigurationColumns,
    schemas: admissionSchemas,
    schemaName: mutating ? names.mwc : names.vwc,
    listSchemaName: mutating ? names.mwcList : names.vwcList,
    fieldOrder: kindOrder(['webhooks', mutating ? MUTATING_WEBHOOK : VALIDATING_WEBHOOK]),
    zeroValue: () => ({ metadata: { creationTimestamp: null } }),
    selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
    unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  };
}
