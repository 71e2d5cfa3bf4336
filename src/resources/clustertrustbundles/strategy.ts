// How the generic store treats ClusterTrustBundles: no status, resourceVersion required on
// update (AllowUnconditionalUpdate=false upstream), generation tracked per docs/api-compatibility.md decision 3;
// warnings for certificates outside their validity or expiring soon (expiry.ts).

import { defineStrategy } from '../../registry/strategy.js';
import { bumpGenerationOnSpecChange, initialGeneration } from '../generation.js';
import { expiryWarnings } from './expiry.js';
import type { ClusterTrustBundle } from './types.js';
import { validateClusterTrustBundle, validateClusterTrustBundleUpdate } from './validation.js';

export const clusterTrustBundleStrategy = defineStrategy<ClusterTrustBundle>({
  prepareForCreate: (_ctx, obj) => initialGeneration(obj),
  prepareForUpdate: (_ctx, obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: (_ctx, obj) => validateClusterTrustBundle(obj),
  validateUpdate: (_ctx, obj, old) => validateClusterTrustBundleUpdate(obj, old),
  // Expired, not yet valid or soon expiring anchors are accepted, and said so (expiry.ts).
  warningsOnCreate: (_ctx, obj) => expiryWarnings(obj.spec?.trustBundle ?? '', new Date()),
  warningsOnUpdate: (_ctx, obj) => expiryWarnings(obj.spec?.trustBundle ?? '', new Date()),
  // Stryker disable next-line BooleanLiteral: equivalent, the generic store reads no allowCreateOnUpdate (an update of a missing object is a 404)
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  resetFields: [],
});
