// admissionregistration.k8s.io/v1 as on the wire: ValidatingAdmissionPolicy(Binding) and
// Validating/MutatingWebhookConfiguration, with the types they share.

import type { Condition, KubeObject } from '../../apimachinery/object-meta.js';

export const GROUP = 'admissionregistration.k8s.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface LabelSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type OperationType = '*' | 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface RuleWithOperations extends Rule {
  operations?: string[];
}

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface MatchCondition {
  name?: string;
  expression?: string;
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface Validation {
  expression?: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface Variable {
  name?: string;
  expression?: string;
}

export interface AuditAnnotation {
  key?: string;
  valueExpression?: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: string;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ExpressionWarning {
  fieldRef?: string;
  warning?: string;
}

export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: ExpressionWarning[] };
  conditions?: Condition[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec?: ValidatingAdmissionPolicyBindingSpec;
}

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 of PEM certificates. */
  caBundle?: string;
}

export interface ValidatingWebhook {
  name?: string;
  clientConfig?: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

export interface MutatingWebhook extends ValidatingWebhook {
  reinvocationPolicy?: string;
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  webhooks?: ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  webhooks?: MutatingWebhook[];
}
