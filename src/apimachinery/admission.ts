// Admission contract: plugins that see a write after validation and before storage.
// Implemented in auth/ (signer attestation); called by registry/ without knowing who implements it.

import type { KubeObject } from './object-meta.js';
import type { UserInfo } from './request-context.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  group: string;
  version: string;
  kind: string;
  resource: string;
  subresource: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
}

/** A validating admission plugin: resolves to allow, throws a StatusError (usually 403) to deny. */
export interface AdmissionPlugin {
  readonly name: string;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

/** Runs plugins in order; the first denial wins. */
export async function runAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) await plugin.validate(attrs);
}
