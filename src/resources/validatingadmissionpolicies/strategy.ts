// How the generic store treats ValidatingAdmissionPolicies (kube's strategy): defaults applied,
// status cleared on create and kept on spec writes, generation moved by spec changes; /status
// writes change only status. A resourceVersion is required on update.

import { defineStrategy } from '../../registry/strategy.js';
import { defaultPolicySpec } from '../admissionregistration/defaults.js';
import type { ValidatingAdmissionPolicy } from '../admissionregistration/types.js';
import { bumpGenerationOnSpecChange, initialGeneration } from '../generation.js';
import { validatePolicy, validatePolicyStatusUpdate, validatePolicyUpdate } from './validation.js';

export const policyStrategy = defineStrategy<ValidatingAdmissionPolicy>({
  prepareForCreate: (_ctx, obj) => {
    defaultPolicySpec(obj.spec);
    obj.status = {};
    initialGeneration(obj);
  },
  prepareForUpdate: (_ctx, obj, old) => {
    defaultPolicySpec(obj.spec);
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: (_ctx, obj) => validatePolicy(obj),
  validateUpdate: (_ctx, obj, old) => validatePolicyUpdate(obj, old),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  resetFields: ['status'],
});

/** The metadata a /status write may not change (ResetObjectMetaForStatus). */
function resetMetadataForStatus(obj: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy): void {
  for (const field of ['deletionTimestamp', 'generation', 'selfLink', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    if (old.metadata[field] === undefined) delete obj.metadata[field];
    else (obj.metadata as Record<string, unknown>)[field] = old.metadata[field];
  }
}

export const policyStatusStrategy = defineStrategy<ValidatingAdmissionPolicy>({
  prepareForUpdate: (_ctx, obj, old) => {
    if (old.spec === undefined) delete obj.spec;
    else obj.spec = old.spec;
    resetMetadataForStatus(obj, old);
  },
  validateUpdate: (_ctx, obj, old) => validatePolicyStatusUpdate(obj, old),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  resetFields: ['metadata', 'spec'],
});
