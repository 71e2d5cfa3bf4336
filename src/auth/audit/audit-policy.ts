// audit.k8s.io/v1 Policy: the first rule that matches a request decides its level (None,
// Metadata, Request, RequestResponse) and the stages left out; no match means None.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { UserInfo } from '../../apimachinery/request-context.js';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface AuditRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
}

export interface AuditPolicy {
  rules: AuditRule[];
  omitStages?: AuditStage[];
}

export interface AuditRequest {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export class AuditPolicyError extends Error {
  override name = 'AuditPolicyError';
}

export function parseAuditPolicy(text: string): AuditPolicy {
  const doc = parse(text) as { apiVersion?: string; kind?: string; rules?: unknown; omitStages?: unknown } | null;
  if (!doc || doc.kind !== 'Policy' || (doc.apiVersion !== 'audit.k8s.io/v1' && doc.apiVersion !== 'audit.k8s.io/v1beta1')) {
    throw new AuditPolicyError('the audit policy must be an audit.k8s.io/v1 Policy');
  }
  if (!Array.isArray(doc.rules)) throw new AuditPolicyError('the audit policy needs a list of rules');
  const checkStages = (v: unknown, where: string): AuditStage[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((s) => STAGES.includes(s as AuditStage))) throw new AuditPolicyError(`${where}: omitStages must list ${STAGES.join(', ')}`);
    return v as AuditStage[];
  };
  const rules = doc.rules.map((r: AuditRule, i: number) => {
    if (!LEVELS.includes(r?.level)) throw new AuditPolicyError(`rules[${i}].level must be one of ${LEVELS.join(', ')}`);
    return { ...r, omitStages: checkStages(r.omitStages, `rules[${i}]`) };
  });
  return { rules, omitStages: checkStages(doc.omitStages, 'policy') };
}

export const loadAuditPolicy = (path: string): AuditPolicy => parseAuditPolicy(readFileSync(path, 'utf8'));

/** Without a policy file every request is audited at Metadata (kube-apiserver requires a file; we default). */
export const METADATA_FOR_ALL: AuditPolicy = { rules: [{ level: 'Metadata' }] };

const listed = (list: string[] | undefined, value: string): boolean => !list?.length || list.includes(value);

function resourceMatches(rule: GroupResources[], r: AuditRequest): boolean {
  const combined = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return rule.some((gr) => {
    if ((gr.group ?? '') !== r.apiGroup && gr.group !== '*') return false;
    const resources = gr.resources ?? [];
    const resourceOk =
      resources.length === 0 ||
      resources.some((p) => p === '*' || p === combined || p === r.resource || (r.subresource !== '' && (p === `*/${r.subresource}` || p === `${r.resource}/*`)));
    return resourceOk && (!gr.resourceNames?.length || gr.resourceNames.includes(r.name));
  });
}

function ruleMatches(rule: AuditRule, r: AuditRequest): boolean {
  if (!listed(rule.users, r.user.username)) return false;
  if (rule.userGroups?.length && !r.user.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (!listed(rule.verbs, r.verb)) return false;
  if (rule.resources?.length || rule.namespaces?.length) {
    if (!r.isResourceRequest) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(r.namespace)) return false;
    if (rule.resources?.length && !resourceMatches(rule.resources, r)) return false;
  }
  if (rule.nonResourceURLs?.length) {
    if (r.isResourceRequest) return false;
    return rule.nonResourceURLs.some((u) => u === '*' || u === r.path || (u.endsWith('*') && r.path.startsWith(u.slice(0, -1))));
  }
  return true;
}

export function auditLevel(policy: AuditPolicy, r: AuditRequest): { level: AuditLevel; omitStages: AuditStage[] } {
  const rule = policy.rules.find((x) => ruleMatches(x, r));
  if (!rule) return { level: 'None', omitStages: [] };
  return { level: rule.level, omitStages: [...new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])])] };
}
