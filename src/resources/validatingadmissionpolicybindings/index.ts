// The ValidatingAdmissionPolicyBinding resource definition (admissionregistration.k8s.io/v1):
// defaults applied, generation moved by spec changes, a resourceVersion required on update.

import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { defineStrategy } from '../../registry/strategy.js';
import { defaultBindingSpec } from '../admissionregistration/defaults.js';
import { BINDING_SPEC } from '../admissionregistration/field-orders.js';
import { admissionSchemas, names } from '../admissionregistration/schemas.js';
import { bindingColumns } from '../admissionregistration/tables.js';
import { GROUP, VERSION, type ValidatingAdmissionPolicyBinding } from '../admissionregistration/types.js';
import { bumpGenerationOnSpecChange, initialGeneration } from '../generation.js';
import { validateBinding, validateBindingUpdate } from './validation.js';

const bindingStrategy = defineStrategy<ValidatingAdmissionPolicyBinding>({
  prepareForCreate: (_ctx, obj) => {
    defaultBindingSpec(obj.spec);
    initialGeneration(obj);
  },
  prepareForUpdate: (_ctx, obj, old) => {
    defaultBindingSpec(obj.spec);
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: (_ctx, obj) => validateBinding(obj),
  validateUpdate: (_ctx, obj, old) => validateBindingUpdate(obj, old),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
});

export const validatingAdmissionPolicyBindings: ResourceDefinition<ValidatingAdmissionPolicyBinding> = {
  group: GROUP,
  version: VERSION,
  kind: 'ValidatingAdmissionPolicyBinding',
  listKind: 'ValidatingAdmissionPolicyBindingList',
  plural: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  scope: 'Cluster',
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy: bindingStrategy,
  subresources: [],
  table: bindingColumns,
  schemas: admissionSchemas,
  schemaName: names.vapb,
  listSchemaName: names.vapbList,
  fieldOrder: kindOrder(['spec', BINDING_SPEC]),
  zeroValue: () => ({ metadata: { creationTimestamp: null }, spec: {} }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};
