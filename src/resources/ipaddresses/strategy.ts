// How the generic store treats IPAddresses (kube's ipAddressStrategy): nothing is prepared or
// kept on create or update, replace without resourceVersion is allowed, PUT never creates.

import { defineStrategy } from '../../registry/strategy.js';
import type { IPAddress } from './types.js';
import { validateIPAddress, validateIPAddressUpdate } from './validation.js';

export const ipAddressStrategy = defineStrategy<IPAddress>({
  validate: (_ctx, obj) => validateIPAddress(obj),
  validateUpdate: (_ctx, obj, old) => validateIPAddressUpdate(obj, old),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
});
