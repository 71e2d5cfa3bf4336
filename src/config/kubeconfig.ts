// The admin kubeconfig: server URL, the CA embedded, a bearer token. Written atomically, 0600;
// kubeconfigYaml is the same text for a caller that keeps it in memory (src/testing/).

import { renameSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  caCertPem: string;
  token: string;
  user?: string;
  contextName?: string;
}

export function kubeconfigYaml(opts: KubeconfigOptions): string {
  const context = opts.contextName ?? 'platform-apiserver';
  const user = opts.user ?? 'admin';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: context, cluster: { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caCertPem).toString('base64') } }],
    users: [{ name: user, user: { token: opts.token } }],
    contexts: [{ name: context, context: { cluster: context, user } }],
    'current-context': context,
    preferences: {},
  };
  return stringify(config);
}

export function writeAdminKubeconfig(opts: KubeconfigOptions & { path: string }): void {
  const tmp = `${opts.path}.${process.pid}.tmp`;
  writeFileSync(tmp, kubeconfigYaml(opts), { mode: 0o600 });
  renameSync(tmp, opts.path);
}
