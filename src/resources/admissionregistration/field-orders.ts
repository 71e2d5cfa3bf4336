// The admissionregistration types' fields in Go struct order: how objects are stored and served.

import { CONDITION_ORDER, type FieldOrder } from '../../apimachinery/field-order.js';

const LABEL_SELECTOR: FieldOrder = [['matchLabels', 'map'], ['matchExpressions', ['key', 'operator', 'values']]];
const RULE_WITH_OPERATIONS: FieldOrder = ['operations', 'apiGroups', 'apiVersions', 'resources', 'scope'];
const NAMED_RULE: FieldOrder = ['resourceNames', ...RULE_WITH_OPERATIONS];
const MATCH_CONDITION: FieldOrder = ['name', 'expression'];

export const MATCH_RESOURCES: FieldOrder = [
  ['namespaceSelector', LABEL_SELECTOR],
  ['objectSelector', LABEL_SELECTOR],
  ['resourceRules', NAMED_RULE],
  ['excludeResourceRules', NAMED_RULE],
  'matchPolicy',
];

export const POLICY_SPEC: FieldOrder = [
  ['paramKind', ['apiVersion', 'kind']],
  ['matchConstraints', MATCH_RESOURCES],
  ['validations', ['expression', 'message', 'reason', 'messageExpression']],
  'failurePolicy',
  ['auditAnnotations', ['key', 'valueExpression']],
  ['matchConditions', MATCH_CONDITION],
  ['variables', ['name', 'expression']],
];

export const POLICY_STATUS: FieldOrder = ['observedGeneration', ['typeChecking', [['expressionWarnings', ['fieldRef', 'warning']]]], ['conditions', CONDITION_ORDER]];

export const BINDING_SPEC: FieldOrder = [
  'policyName',
  ['paramRef', ['name', 'namespace', ['selector', LABEL_SELECTOR], 'parameterNotFoundAction']],
  ['matchResources', MATCH_RESOURCES],
  'validationActions',
];

const webhook = (mutating: boolean): FieldOrder => [
  'name',
  ['clientConfig', ['url', ['service', ['namespace', 'name', 'path', 'port']], 'caBundle']],
  ['rules', RULE_WITH_OPERATIONS],
  'failurePolicy',
  'matchPolicy',
  ['namespaceSelector', LABEL_SELECTOR],
  ['objectSelector', LABEL_SELECTOR],
  'sideEffects',
  'timeoutSeconds',
  'admissionReviewVersions',
  ...(mutating ? ['reinvocationPolicy'] : []),
  ['matchConditions', MATCH_CONDITION],
];

export const VALIDATING_WEBHOOK = webhook(false);
export const MUTATING_WEBHOOK = webhook(true);
