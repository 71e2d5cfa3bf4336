// Objects and waits the admission tests share: policies, bindings and webhook configurations
// as manifests, and a bounded wait for a configuration to be in force (the server reads them
// through informers, so a new one applies a moment after it is stored, as in kube).

import { eventually } from './polling.js';

export const AR = '/apis/admissionregistration.k8s.io/v1';
export const VAP = `${AR}/validatingadmissionpolicies`;
export const VAPB = `${AR}/validatingadmissionpolicybindings`;
export const VWC = `${AR}/validatingwebhookconfigurations`;
export const MWC = `${AR}/mutatingwebhookconfigurations`;
export const SC = '/apis/networking.platform.io/v1/servicecidrs';
export const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

export const serviceCIDR = (name: string, cidrs: string[], labels?: Record<string, string>) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { cidrs },
});

export const SERVICE_CIDR_RULES = [{ apiGroups: ['networking.platform.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['servicecidrs'] }];

export function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: { resourceRules: SERVICE_CIDR_RULES }, ...spec } };
}

export function binding(name: string, policyName: string, validationActions: string[], more: Record<string, unknown> = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions, ...more } };
}

interface Requester {
  request(method: string, path: string, opts?: { body?: unknown }): Promise<{ status: number; text: string; json: any; headers: Record<string, string | string[] | undefined> }>;
}

/** Creates each object, failing loudly on anything but 201. */
export async function createAll(server: Requester, items: [string, unknown][]): Promise<void> {
  for (const [path, body] of items) {
    const r = await server.request('POST', path, { body });
    if (r.status !== 201) throw new Error(`creating at ${path}: ${r.status} ${r.text}`);
  }
}

/**
 * Sends a dry-run create until its answer has `status` (the configuration is in force), for at
 * most `ms`; returns the last answer.
 */
export function untilAnswered(server: Requester, path: string, body: unknown, status: number, ms = 15_000) {
  return eventually(() => server.request('POST', `${path}?dryRun=All`, { body }), (r) => r.status === status, ms, 100);
}
