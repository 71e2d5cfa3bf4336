// Loads --authorization-policy-file (multi-document YAML of rbac.authorization.k8s.io/v1
// ClusterRole, ClusterRoleBinding, Role, RoleBinding) and reloads it when it changes.
// A broken file keeps the last good policy; the error is logged and reported by health().

import type { FileChanges } from '../file-changes.js';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '../../apimachinery/request-context.js';
import { withBootstrapPolicy } from './bootstrap-policy.js';
import { emptyPolicy, type PolicyRule, type RbacPolicy, type RoleRef, type Subject } from './rbac-types.js';

const API_VERSION = 'rbac.authorization.k8s.io/v1';

export class PolicyFileError extends Error {
  override name = 'PolicyFileError';
}

/** Parses the file's text into a policy (without the bootstrap roles); throws PolicyFileError. */
export function parsePolicy(text: string): RbacPolicy {
  const policy = emptyPolicy();
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs)) throw new PolicyFileError('the policy file is not a YAML document stream');
  docs.forEach((doc, i) => {
    if (doc.errors.length) throw new PolicyFileError(`document ${i}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    addObject(policy, value, i);
  });
  return policy;
}

function addObject(policy: RbacPolicy, value: unknown, i: number): void {
  const obj = asRecord(value, `document ${i}`);
  if (obj.apiVersion !== API_VERSION) throw new PolicyFileError(`document ${i}: apiVersion must be ${API_VERSION}`);
  const meta = asRecord(obj.metadata, `document ${i}: metadata`);
  const name = requireString(meta.name, `document ${i}: metadata.name`);
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const where = `document ${i} (${String(obj.kind)} "${name}")`;
  switch (obj.kind) {
    case 'ClusterRole':
      policy.clusterRoles.set(name, { kind: 'ClusterRole', metadata: { name }, rules: rulesOf(obj.rules, where) });
      return;
    case 'Role':
      if (!namespace) throw new PolicyFileError(`${where}: metadata.namespace is required`);
      policy.roles.set(`${namespace}/${name}`, { kind: 'Role', metadata: { name, namespace }, rules: rulesOf(obj.rules, where) });
      return;
    case 'ClusterRoleBinding':
      policy.clusterRoleBindings.push({ kind: 'ClusterRoleBinding', metadata: { name }, roleRef: roleRefOf(obj.roleRef, where, false), subjects: subjectsOf(obj.subjects, where) });
      return;
    case 'RoleBinding':
      if (!namespace) throw new PolicyFileError(`${where}: metadata.namespace is required`);
      policy.roleBindings.push({ kind: 'RoleBinding', metadata: { name, namespace }, roleRef: roleRefOf(obj.roleRef, where, true), subjects: subjectsOf(obj.subjects, where) });
      return;
    default:
      throw new PolicyFileError(`document ${i}: kind must be ClusterRole, ClusterRoleBinding, Role or RoleBinding, not ${JSON.stringify(obj.kind)}`);
  }
}

function asRecord(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PolicyFileError(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function requireString(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw new PolicyFileError(`${what} must be a non-empty string`);
  return v;
}

function stringList(v: unknown, what: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new PolicyFileError(`${what} must be a list of strings`);
  return v as string[];
}

function rulesOf(v: unknown, where: string): PolicyRule[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new PolicyFileError(`${where}: rules must be a list`);
  return v.map((r, j) => {
    const rule = asRecord(r, `${where}: rules[${j}]`);
    const verbs = stringList(rule.verbs, `${where}: rules[${j}].verbs`);
    if (!verbs?.length) throw new PolicyFileError(`${where}: rules[${j}].verbs must not be empty`);
    return {
      verbs,
      apiGroups: stringList(rule.apiGroups, `${where}: rules[${j}].apiGroups`),
      resources: stringList(rule.resources, `${where}: rules[${j}].resources`),
      resourceNames: stringList(rule.resourceNames, `${where}: rules[${j}].resourceNames`),
      nonResourceURLs: stringList(rule.nonResourceURLs, `${where}: rules[${j}].nonResourceURLs`),
    };
  });
}

function roleRefOf(v: unknown, where: string, mayBeRole: boolean): RoleRef {
  const ref = asRecord(v, `${where}: roleRef`);
  const kind = ref.kind;
  if (kind !== 'ClusterRole' && !(mayBeRole && kind === 'Role')) {
    throw new PolicyFileError(`${where}: roleRef.kind must be ${mayBeRole ? 'Role or ClusterRole' : 'ClusterRole'}`);
  }
  return { apiGroup: 'rbac.authorization.k8s.io', kind, name: requireString(ref.name, `${where}: roleRef.name`) };
}

function subjectsOf(v: unknown, where: string): Subject[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new PolicyFileError(`${where}: subjects must be a list`);
  return v.map((s, j) => {
    const subject = asRecord(s, `${where}: subjects[${j}]`);
    const kind = subject.kind;
    if (kind !== 'User' && kind !== 'Group' && kind !== 'ServiceAccount') {
      throw new PolicyFileError(`${where}: subjects[${j}].kind must be User, Group or ServiceAccount`);
    }
    const out: Subject = { kind, name: requireString(subject.name, `${where}: subjects[${j}].name`) };
    if (typeof subject.namespace === 'string') out.namespace = subject.namespace;
    return out;
  });
}

export interface PolicySource {
  /** The current policy (bootstrap roles included). */
  current(): RbacPolicy;
  /** Empty when the last load succeeded; otherwise why the file is being ignored. */
  health(): string;
  close(): void;
}

/**
 * Without a file: the bootstrap policy alone. With one: loaded now (a broken file at start throws)
 * and re-read when `changes` says it may have changed and its contents did.
 */
export function loadPolicySource(path: string | undefined, logger: Logger, changes: FileChanges): PolicySource {
  let policy = withBootstrapPolicy(emptyPolicy());
  let problem = '';
  if (!path) return { current: () => policy, health: () => '', close: () => {} };
  // Contents, not modification times, decide whether the file changed: a rewrite within the
  // same timestamp tick (or a restored copy with an old mtime) must still be noticed.
  let lastText = readFileSync(path, 'utf8');
  policy = withBootstrapPolicy(parsePolicy(lastText));
  const onChange = (): void => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      problem = `authorization policy file ${path} is unreadable, keeping the last good policy: ${(err as Error).message}`;
      lastText = ''; // whatever comes back next is a change
      return;
    }
    if (text === lastText) return;
    lastText = text;
    try {
      policy = withBootstrapPolicy(parsePolicy(text));
      if (problem) logger.info({ path }, 'authorization policy file is valid again; reloaded');
      else logger.info({ path }, 'authorization policy file reloaded');
      problem = '';
    } catch (err) {
      problem = `authorization policy file ${path} is invalid, keeping the last good policy: ${err instanceof Error ? err.message : String(err)}`;
      logger.error({ path }, problem);
    }
  };
  const followed = changes(onChange);
  return { current: () => policy, health: () => problem, close: () => followed.close() };
}
