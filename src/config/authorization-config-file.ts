// --authorization-config: kube's structured AuthorizationConfiguration
// (apiserver.config.k8s.io v1, also read as v1beta1 and v1alpha1), parsed, defaulted
// (authorizedTTL 5m, unauthorizedTTL 30s) and validated with kube 1.33's rules and messages
// (`authorizers[0].webhook.timeout: Required value`, …), CEL match conditions compiled. The
// legacy flags are turned into the same list of authorizers, as kube does.

import { isAbsolute } from 'node:path';
import { statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { fieldErrors, fieldErrorText, FieldPath, type FieldError } from '../apimachinery/field-error.js';
import { isDNS1123Subdomain } from '../apimachinery/validation/names.js';
import type { SarVersion } from '../auth/webhook/subject-access-review.js';
import type { FailurePolicy } from '../auth/webhook/webhook-authorizer.js';
import type { Program } from '../auth/webhook/match-conditions.js';
import { parseGoDuration } from '../apimachinery/go-duration.js';
import type { AuthorizationMode, WebhookFlags } from './authorization-options.js';

export interface WebhookSpec {
  timeoutMs: number;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  version: SarVersion;
  failurePolicy: FailurePolicy;
  connection: { kind: 'kubeconfig'; path: string } | { kind: 'in-cluster' };
  matchConditions: string[];
  /** The match conditions as compiled when the file was validated, in the same order (reused by the chain, never compiled twice). */
  compiledConditions?: readonly Program[];
}

export interface AuthorizerSpec {
  type: AuthorizationMode;
  name: string;
  webhook?: WebhookSpec;
}

const GROUP = 'apiserver.config.k8s.io';
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];
/** kube's types (ABAC included, refused on its own below); only Webhook may repeat. */
const KNOWN_TYPES = ['ABAC', 'AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];

/** The flags' chain as kube converts it: the webhook named `default`, 30 s, failures without an opinion. */
export function authorizersFromFlags(modes: readonly AuthorizationMode[], webhook: WebhookFlags | undefined): AuthorizerSpec[] {
  return modes.map((type) =>
    type === 'Webhook'
      ? {
          type,
          name: 'default',
          webhook: {
            timeoutMs: 30_000,
            authorizedTtlMs: webhook!.authorizedTtlMs,
            unauthorizedTtlMs: webhook!.unauthorizedTtlMs,
            version: webhook!.version,
            failurePolicy: 'NoOpinion',
            connection: { kind: 'kubeconfig', path: webhook!.configFile },
            matchConditions: [],
          },
        }
      : { type, name: type.toLowerCase() },
  );
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Parses and validates the file's text; throws one Error listing every problem, as kube does.
 * The CEL evaluator (a quarter of a second to load) is imported only when there are match conditions.
 */
export async function parseAuthorizationConfiguration(text: string, path: string): Promise<AuthorizerSpec[]> {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    throw new Error(`failed to load authorization configuration file ${path}: ${(err as Error).message}`);
  }
  const root = obj(doc);
  const apiVersion = str(root.apiVersion);
  if (root.kind !== 'AuthorizationConfiguration' || !VERSIONS.some((v) => apiVersion === `${GROUP}/${v}`)) {
    throw new Error(`failed to load authorization configuration file ${path}: want kind AuthorizationConfiguration of ${VERSIONS.map((v) => `${GROUP}/${v}`).join(', ')}, got ${JSON.stringify(root.kind ?? '')} of ${JSON.stringify(apiVersion)}`);
  }
  const errors: FieldError[] = [];
  const list = Array.isArray(root.authorizers) ? root.authorizers : [];
  if (list.length === 0) errors.push(fieldErrors.required('authorizers', 'at least one authorization mode must be defined'));
  const hasConditions = list.some((a) => Array.isArray(obj(obj(a).webhook).matchConditions) && (obj(obj(a).webhook).matchConditions as unknown[]).length > 0);
  const compile = hasConditions ? (await import('../auth/webhook/match-conditions.js')).compileMatchCondition : undefined;
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const out: AuthorizerSpec[] = [];
  list.forEach((raw, i) => {
    const at = FieldPath.root('authorizers').index(i);
    const a = obj(raw);
    const type = str(a.type);
    if (!type) return errors.push(fieldErrors.required(at.child('type')));
    if (!KNOWN_TYPES.includes(type)) return errors.push(fieldErrors.notSupported(at.child('type'), type, KNOWN_TYPES));
    if (type === 'ABAC') return errors.push(fieldErrors.invalid(at.child('type'), type, 'ABAC is not supported by platform-apiserver'));
    if (seenTypes.has(type) && type !== 'Webhook') return errors.push(fieldErrors.duplicate(at.child('type'), type));
    seenTypes.add(type);
    const name = str(a.name);
    if (!name) errors.push(fieldErrors.required(at.child('name')));
    else if (seenNames.has(name)) errors.push(fieldErrors.duplicate(at.child('name'), name));
    else if (isDNS1123Subdomain(name).length) errors.push(fieldErrors.invalid(at.child('name'), name, `authorizer name is invalid: ${isDNS1123Subdomain(name).join(', ')}`));
    seenNames.add(name);
    const spec: AuthorizerSpec = { type: type as AuthorizationMode, name };
    if (type === 'Webhook') {
      if (a.webhook === undefined || a.webhook === null) return errors.push(fieldErrors.required(at.child('webhook'), 'required when type=Webhook'));
      const w = webhookSpec(obj(a.webhook), at.child('webhook'), errors, compile);
      if (w) spec.webhook = w;
    } else if (a.webhook !== undefined && a.webhook !== null) {
      errors.push(fieldErrors.invalid(at.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
    out.push(spec);
  });
  if (errors.length) {
    const texts = errors.map(fieldErrorText);
    throw new Error(texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`);
  }
  return out;
}

function duration(v: unknown, at: FieldPath, errors: FieldError[]): number {
  if (v === undefined || v === null || v === '') return 0;
  try {
    return parseGoDuration(String(v));
  } catch {
    errors.push(fieldErrors.invalid(at, v, 'must be a duration such as 3s or 5m0s'));
    return -1;
  }
}

function webhookSpec(w: Record<string, unknown>, at: FieldPath, errors: FieldError[], compile: ((expression: string) => Program) | undefined): WebhookSpec | undefined {
  const before = errors.length;
  const timeoutMs = duration(w.timeout, at.child('timeout'), errors);
  if (timeoutMs === 0) errors.push(fieldErrors.required(at.child('timeout')));
  else if (timeoutMs > 30_000) errors.push(fieldErrors.invalid(at.child('timeout'), String(w.timeout), 'must be > 0s and <= 30s'));
  // Defaulted when absent (kube's SetDefaults_WebhookConfiguration).
  const authorizedTtlMs = duration(w.authorizedTTL, at.child('authorizedTTL'), errors) || 300_000;
  const unauthorizedTtlMs = duration(w.unauthorizedTTL, at.child('unauthorizedTTL'), errors) || 30_000;
  const version = str(w.subjectAccessReviewVersion);
  if (!version) errors.push(fieldErrors.required(at.child('subjectAccessReviewVersion')));
  else if (version !== 'v1' && version !== 'v1beta1') errors.push(fieldErrors.notSupported(at.child('subjectAccessReviewVersion'), version, ['v1', 'v1beta1']));
  const conditions = Array.isArray(w.matchConditions) ? w.matchConditions : [];
  const mcVersion = str(w.matchConditionSubjectAccessReviewVersion);
  if (!mcVersion && conditions.length) errors.push(fieldErrors.required(at.child('matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
  else if (mcVersion && mcVersion !== 'v1') errors.push(fieldErrors.notSupported(at.child('matchConditionSubjectAccessReviewVersion'), mcVersion, ['v1']));
  const failurePolicy = str(w.failurePolicy);
  if (!failurePolicy) errors.push(fieldErrors.required(at.child('failurePolicy')));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errors.push(fieldErrors.notSupported(at.child('failurePolicy'), failurePolicy, ['NoOpinion', 'Deny']));
  const ci = obj(w.connectionInfo);
  const ciType = str(ci.type);
  const kubeConfigFile = ci.kubeConfigFile;
  let connection: WebhookSpec['connection'] | undefined;
  if (!ciType) errors.push(fieldErrors.required(at.child('connectionInfo', 'type')));
  else if (ciType === 'InClusterConfig') {
    if (kubeConfigFile !== undefined && kubeConfigFile !== null) errors.push(fieldErrors.invalid(at.child('connectionInfo', 'kubeConfigFile'), kubeConfigFile, 'can only be set when type=KubeConfigFile'));
    connection = { kind: 'in-cluster' };
  } else if (ciType === 'KubeConfigFile') {
    const file = str(kubeConfigFile);
    if (!file) errors.push(fieldErrors.required(at.child('connectionInfo', 'kubeConfigFile')));
    else if (!isAbsolute(file)) errors.push(fieldErrors.invalid(at.child('connectionInfo', 'kubeConfigFile'), file, 'must be an absolute path'));
    else {
      let regular = false;
      try {
        regular = statSync(file).isFile();
        if (!regular) errors.push(fieldErrors.invalid(at.child('connectionInfo', 'kubeConfigFile'), file, 'must be a regular file'));
      } catch (err) {
        errors.push(fieldErrors.invalid(at.child('connectionInfo', 'kubeConfigFile'), file, `error loading file: ${(err as Error).message}`));
      }
      if (regular) connection = { kind: 'kubeconfig', path: file };
    }
  } else errors.push(fieldErrors.notSupported(at.child('connectionInfo', 'type'), ciType, ['InClusterConfig', 'KubeConfigFile']));
  const expressions: string[] = [];
  const programs: Program[] = [];
  conditions.forEach((c, j) => {
    const ePath = at.child('matchConditions').index(j).child('expression');
    const expression = str(obj(c).expression);
    if (!expression) return errors.push(fieldErrors.required(ePath));
    if (expressions.includes(expression)) return errors.push(fieldErrors.duplicate(ePath, expression));
    try {
      programs.push(compile!(expression));
    } catch (err) {
      return errors.push(fieldErrors.invalid(ePath, expression, (err as Error).message));
    }
    expressions.push(expression);
  });
  if (errors.length > before || !connection) return undefined;
  return { timeoutMs, authorizedTtlMs, unauthorizedTtlMs, version: version as SarVersion, failurePolicy: failurePolicy as FailurePolicy, connection, matchConditions: expressions, ...(programs.length ? { compiledConditions: programs } : {}) };
}
