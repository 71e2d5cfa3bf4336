// The authorization flags as kube-apiserver 1.33 checks them: `--authorization-mode` (an ordered
// comma list of RBAC, Webhook, AlwaysAllow, AlwaysDeny, Node; kube also knows ABAC, which has no
// policy format here), the `--authorization-webhook-*` flags of the Webhook mode, and
// `--authorization-config`, which excludes all of them. Kube's messages, collected as kube
// collects them. Our default mode is RBAC (kube's is AlwaysAllow): RBAC with the built-in roles
// and --authorization-policy-file has always been this server's authorization.

import { parseGoDuration } from '../apimachinery/go-duration.js';
import type { SarVersion } from '../auth/webhook/subject-access-review.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = Exclude<(typeof AUTHORIZATION_MODES)[number], 'ABAC'>;
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ['RBAC'];

export interface WebhookFlags {
  configFile: string;
  version: SarVersion;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export type AuthorizationConfig = { kind: 'modes'; modes: AuthorizationMode[]; webhook?: WebhookFlags } | { kind: 'file'; path: string };

export interface AuthorizationFlagValues {
  mode?: string;
  /** Whether each flag was given on the command line (kube's "changed"). */
  modeSet: boolean;
  webhookConfigFile?: string;
  webhookVersion: string;
  webhookVersionSet: boolean;
  authorizedTtl: string;
  authorizedTtlSet: boolean;
  unauthorizedTtl: string;
  unauthorizedTtlSet: boolean;
  policyFile?: string;
  configFile?: string;
}

/** The checked configuration; throws one Error with every problem, as kube reports them. */
export function resolveAuthorization(v: AuthorizationFlagValues): AuthorizationConfig {
  if (v.configFile) {
    const legacy = v.modeSet || v.webhookConfigFile !== undefined || v.webhookVersionSet || v.authorizedTtlSet || v.unauthorizedTtlSet;
    if (legacy) throw new Error('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    return { kind: 'file', path: v.configFile };
  }
  const modes = v.mode === undefined ? [...DEFAULT_AUTHORIZATION_MODES] : v.mode.split(',').map((m) => m.trim()).filter(Boolean);
  const errors: string[] = [];
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    else if (mode === 'ABAC') errors.push('authorization-mode "ABAC" is not supported by platform-apiserver (its --authorization-policy-file holds RBAC objects; use RBAC)');
    if (mode === 'Webhook' && !v.webhookConfigFile) errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (v.policyFile && !modes.includes('RBAC')) errors.push('cannot specify --authorization-policy-file without mode RBAC');
  if (v.webhookConfigFile && !modes.includes('Webhook')) errors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode [${modes.join(' ')}] has mode specified more than once`);
  const version = v.webhookVersion;
  if (version !== 'v1' && version !== 'v1beta1') errors.push(`unsupported webhook authorizer version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`);
  const ttl = (text: string, flag: string): number => {
    try {
      return parseGoDuration(text);
    } catch (err) {
      errors.push(`--${flag}: ${(err as Error).message}`);
      return 0;
    }
  };
  const authorizedTtlMs = ttl(v.authorizedTtl, 'authorization-webhook-cache-authorized-ttl');
  const unauthorizedTtlMs = ttl(v.unauthorizedTtl, 'authorization-webhook-cache-unauthorized-ttl');
  if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  const out: AuthorizationConfig = { kind: 'modes', modes: modes as AuthorizationMode[] };
  if (v.webhookConfigFile) out.webhook = { configFile: v.webhookConfigFile, version: version as SarVersion, authorizedTtlMs, unauthorizedTtlMs };
  return out;
}
