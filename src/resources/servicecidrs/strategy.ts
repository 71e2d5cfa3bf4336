// How the generic store treats ServiceCIDRs (upstream strategy plus docs/api-compatibility.md decisions 3–5):
// unconditional updates allowed; status wiped on create and kept on main-resource updates;
// /status writes change only status.

import { defineStrategy } from '../../registry/strategy.js';
import { bumpGenerationOnSpecChange, initialGeneration } from '../generation.js';
import type { ServiceCIDR } from './types.js';
import { validateServiceCIDR, validateServiceCIDRStatusUpdate, validateServiceCIDRUpdate } from './validation.js';

export const serviceCIDRStrategy = defineStrategy<ServiceCIDR>({
  prepareForCreate: (_ctx, obj) => {
    delete obj.status;
    initialGeneration(obj);
  },
  prepareForUpdate: (_ctx, obj, old) => {
    // Stryker disable next-line ConditionalExpression: equivalent, status set to undefined is not stored either
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: (_ctx, obj) => validateServiceCIDR(obj),
  validateUpdate: (_ctx, obj, old) => validateServiceCIDRUpdate(obj, old),
  // Stryker disable next-line BooleanLiteral: equivalent, the generic store reads no allowCreateOnUpdate (an update of a missing object is a 404)
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  resetFields: ['status'],
});

/** The metadata a /status write may not change (upstream ResetObjectMetaForStatus). */
function resetMetadataForStatus(obj: ServiceCIDR, old: ServiceCIDR): void {
  const keep = ['deletionTimestamp', 'generation', 'selfLink', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const;
  for (const field of keep) {
    // Stryker disable next-line ConditionalExpression: equivalent, a field set to undefined is not stored either
    if (old.metadata[field] === undefined) delete obj.metadata[field];
    else (obj.metadata as Record<string, unknown>)[field] = old.metadata[field];
  }
}

export const serviceCIDRStatusStrategy = defineStrategy<ServiceCIDR>({
  prepareForUpdate: (_ctx, obj, old) => {
    // Stryker disable next-line ConditionalExpression: equivalent, spec set to undefined is not stored either
    if (old.spec === undefined) delete obj.spec;
    else obj.spec = old.spec;
    resetMetadataForStatus(obj, old);
  },
  validateUpdate: (_ctx, obj, old) => validateServiceCIDRStatusUpdate(obj, old),
  // Stryker disable next-line BooleanLiteral: equivalent, the generic store reads no allowCreateOnUpdate (an update of a missing object is a 404)
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  resetFields: ['metadata', 'spec'],
});
