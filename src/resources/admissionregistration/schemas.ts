// OpenAPI component schemas of admissionregistration.k8s.io/v1 (names, list types, map keys and
// atomic structs as kube-openapi publishes them; descriptions in our words). Decoding, strategic
// merge patch and server-side apply read them.

import { CONDITION, LIST_META, META, OBJECT_META, typeMetaProperties } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { API_VERSION, GROUP, VERSION } from './types.js';

const P = 'io.k8s.api.admissionregistration.v1';
export const LABEL_SELECTOR = `${META}.LabelSelector`;
const LABEL_SELECTOR_REQUIREMENT = `${META}.LabelSelectorRequirement`;

export const names = {
  vap: `${P}.ValidatingAdmissionPolicy`,
  vapList: `${P}.ValidatingAdmissionPolicyList`,
  vapb: `${P}.ValidatingAdmissionPolicyBinding`,
  vapbList: `${P}.ValidatingAdmissionPolicyBindingList`,
  vwc: `${P}.ValidatingWebhookConfiguration`,
  vwcList: `${P}.ValidatingWebhookConfigurationList`,
  mwc: `${P}.MutatingWebhookConfiguration`,
  mwcList: `${P}.MutatingWebhookConfigurationList`,
} as const;

const str = (description: string, extra: Partial<Schema> = {}): Schema => ({ type: 'string', description, ...extra });
const strList = (description: string, listType: 'atomic' | 'set' = 'atomic'): Schema => ({ type: 'array', description, items: { type: 'string', default: '' }, 'x-kubernetes-list-type': listType });
const ref = (name: string, description: string, extra: Partial<Schema> = {}): Schema => ({ allOf: [refTo(`${P}.${name}`)], description, ...extra });
const list = (name: string, description: string, keys?: string[]): Schema => ({
  type: 'array',
  description,
  items: { allOf: [refTo(`${P}.${name}`)], default: {} },
  ...(keys
    ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, 'x-kubernetes-patch-merge-key': keys[0], 'x-kubernetes-patch-strategy': 'merge' }
    : { 'x-kubernetes-list-type': 'atomic' }),
});
const selector = (description: string): Schema => ({ allOf: [refTo(LABEL_SELECTOR)], description });

function kindSchema(kind: string, description: string, properties: Record<string, Schema>, required: string[] = []): Schema {
  return {
    type: 'object',
    description,
    ...(required.length ? { required } : {}),
    properties: { ...typeMetaProperties(API_VERSION, kind), metadata: { allOf: [refTo(OBJECT_META)], default: {}, description: 'Standard object metadata.' }, ...properties },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind }],
  };
}

function listSchema(kind: string, item: string): Schema {
  return {
    type: 'object',
    description: `A list of ${kind} objects.`,
    required: ['items'],
    properties: {
      ...typeMetaProperties(API_VERSION, `${kind}List`),
      items: { type: 'array', description: `The ${kind} objects.`, items: { allOf: [refTo(item)], default: {} } },
      metadata: { allOf: [refTo(LIST_META)], default: {}, description: 'Standard list metadata.' },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, version: VERSION, kind: `${kind}List` }],
  };
}

const ruleProperties: Record<string, Schema> = {
  apiGroups: strList('The API groups the resources belong to; "*" is all groups, "" the core group.'),
  apiVersions: strList('The API versions the resources are in; "*" is all versions.'),
  operations: strList('The operations the rule covers: CREATE, UPDATE, DELETE, CONNECT, or "*" for all.'),
  resources: strList('The resources the rule covers: "pods", "pods/status", "*", "*/status", "*/*".'),
  scope: str('Cluster, Namespaced, or "*" (the default): which scope of objects the rule matches.'),
};

const webhookProperties = (mutating: boolean): Record<string, Schema> => ({
  admissionReviewVersions: strList('The AdmissionReview versions the webhook accepts, in order of preference (v1, v1beta1).'),
  clientConfig: ref('WebhookClientConfig', 'How to reach the webhook.', { default: {} }),
  failurePolicy: str('Ignore or Fail (the default): what happens when the webhook cannot be called or answers badly.'),
  matchConditions: list('MatchCondition', 'CEL conditions that must all hold for the webhook to be called.', ['name']),
  matchPolicy: str('Exact, or Equivalent (the default): whether requests through other versions of a matched resource match too.'),
  name: str('The webhook\'s fully qualified name (e.g. "imagepolicy.example.com").', { default: '' }),
  namespaceSelector: selector('Which namespaces\' objects the webhook sees; everything when empty.'),
  objectSelector: selector('Which objects, by their labels, the webhook sees; everything when empty.'),
  ...(mutating ? { reinvocationPolicy: str('Never (the default) or IfNeeded: whether the webhook is called again when a later mutation changed the object.') } : {}),
  rules: list('RuleWithOperations', 'The operations and resources the webhook is called for.'),
  sideEffects: str('None or NoneOnDryRun: whether calling the webhook changes anything outside the request. Required.'),
  timeoutSeconds: { type: 'integer', format: 'int32', description: 'Seconds to wait for the webhook, 1 to 30 (default 10).' },
});

const matchResourcesProperties: Record<string, Schema> = {
  excludeResourceRules: list('NamedRuleWithOperations', 'Resources the policy does not apply to, even if other rules match.'),
  matchPolicy: str('Exact, or Equivalent (the default).'),
  namespaceSelector: selector('Which namespaces\' objects are matched; everything when empty.'),
  objectSelector: selector('Which objects, by their labels, are matched; everything when empty.'),
  resourceRules: list('NamedRuleWithOperations', 'The operations and resources matched.'),
};

export const admissionSchemas: SchemaRegistry = {
  [LABEL_SELECTOR]: {
    type: 'object',
    description: 'A label query over a set of resources: matchLabels and matchExpressions, all of which must hold. An empty selector matches everything.',
    properties: {
      matchExpressions: { type: 'array', description: 'Requirements on labels.', items: { allOf: [refTo(LABEL_SELECTOR_REQUIREMENT)], default: {} }, 'x-kubernetes-list-type': 'atomic' },
      matchLabels: { type: 'object', description: 'Labels that must have these values.', additionalProperties: { type: 'string', default: '' } },
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [LABEL_SELECTOR_REQUIREMENT]: {
    type: 'object',
    description: 'A requirement on one label: In, NotIn, Exists or DoesNotExist.',
    required: ['key', 'operator'],
    properties: {
      key: str('The label key.', { default: '' }),
      operator: str('In, NotIn, Exists or DoesNotExist.', { default: '' }),
      values: strList('The values for In and NotIn; empty for Exists and DoesNotExist.'),
    },
  },
  [`${P}.MatchCondition`]: {
    type: 'object',
    description: 'A CEL expression that must evaluate to true for a request to be sent on.',
    required: ['name', 'expression'],
    properties: { expression: str('The CEL expression.', { default: '' }), name: str('A name for the condition, unique in its list.', { default: '' }) },
  },
  [`${P}.RuleWithOperations`]: { type: 'object', description: 'Operations on resources.', properties: ruleProperties },
  [`${P}.NamedRuleWithOperations`]: {
    type: 'object',
    description: 'Operations on resources, optionally limited to objects of given names.',
    properties: { ...ruleProperties, resourceNames: strList('The names of the objects matched; every name when empty.') },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${P}.MatchResources`]: { type: 'object', description: 'Which requests a policy or binding applies to.', properties: matchResourcesProperties, 'x-kubernetes-map-type': 'atomic' },
  [`${P}.ParamKind`]: {
    type: 'object',
    description: 'The group-version and kind of the objects that parameterize a policy.',
    properties: { apiVersion: str('The group/version of the parameter kind.'), kind: str('The parameter kind.') },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${P}.Validation`]: {
    type: 'object',
    description: 'A CEL expression a request must satisfy, and the message when it does not.',
    required: ['expression'],
    properties: {
      expression: str('The CEL expression; false denies.', { default: '' }),
      message: str('The message when the expression is false.'),
      messageExpression: str('A CEL expression giving the message; it wins over message when it evaluates to a string.'),
      reason: str('Forbidden, Invalid (the default) or RequestEntityTooLarge: the reason and code of a denial.'),
    },
  },
  [`${P}.Variable`]: {
    type: 'object',
    description: 'A named CEL expression other expressions of the policy read as variables.<name>.',
    required: ['name', 'expression'],
    properties: { expression: str('The CEL expression.', { default: '' }), name: str('The variable\'s name, a CEL identifier.', { default: '' }) },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${P}.AuditAnnotation`]: {
    type: 'object',
    description: 'An audit annotation a policy adds to the request\'s audit event.',
    required: ['key', 'valueExpression'],
    properties: { key: str('The annotation key, prefixed with the policy name in the event.', { default: '' }), valueExpression: str('A CEL expression giving the value (a string, or null to add none).', { default: '' }) },
  },
  [`${P}.ExpressionWarning`]: {
    type: 'object',
    description: 'A type checking problem of one expression.',
    required: ['fieldRef', 'warning'],
    properties: { fieldRef: str('The path of the expression\'s field.', { default: '' }), warning: str('The problems found.', { default: '' }) },
  },
  [`${P}.TypeChecking`]: { type: 'object', description: 'The result of type checking a policy\'s expressions.', properties: { expressionWarnings: list('ExpressionWarning', 'The problems found, per expression.') } },
  [`${P}.ValidatingAdmissionPolicySpec`]: {
    type: 'object',
    description: 'What a ValidatingAdmissionPolicy checks.',
    properties: {
      auditAnnotations: list('AuditAnnotation', 'Audit annotations added for matched requests.'),
      failurePolicy: str('Ignore or Fail (the default): what an error in the policy does.'),
      matchConditions: list('MatchCondition', 'CEL conditions that must all hold for the policy to apply.', ['name']),
      matchConstraints: ref('MatchResources', 'Which requests the policy may apply to. Required.'),
      paramKind: ref('ParamKind', 'The kind of the objects bindings may give the policy as params.'),
      validations: list('Validation', 'The checks.'),
      variables: list('Variable', 'Variables the other expressions may read.'),
    },
  },
  [`${P}.ValidatingAdmissionPolicyStatus`]: {
    type: 'object',
    description: 'What the server found of a policy.',
    properties: {
      conditions: { type: 'array', description: 'Conditions of the policy.', items: { allOf: [refTo(CONDITION)], default: {} }, 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge' },
      observedGeneration: { type: 'integer', format: 'int64', description: 'The generation the status describes.' },
      typeChecking: ref('TypeChecking', 'The result of type checking the expressions.'),
    },
  },
  [names.vap]: kindSchema('ValidatingAdmissionPolicy', 'A set of CEL validations applied to requests that its bindings select.', {
    spec: ref('ValidatingAdmissionPolicySpec', 'The policy.', { default: {} }),
    status: ref('ValidatingAdmissionPolicyStatus', 'What the server found of the policy.', { default: {} }),
  }),
  [names.vapList]: listSchema('ValidatingAdmissionPolicy', names.vap),
  [`${P}.ParamRef`]: {
    type: 'object',
    description: 'Which objects of the policy\'s paramKind parameterize it: one by name, or those a selector selects.',
    properties: {
      name: str('The name of the parameter object.'),
      namespace: str('The namespace of namespaced parameter objects.'),
      parameterNotFoundAction: str('Allow or Deny: what happens when no parameter is found.'),
      selector: selector('A selector of parameter objects; each one found is evaluated.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${P}.ValidatingAdmissionPolicyBindingSpec`]: {
    type: 'object',
    description: 'Which policy a binding applies, to which requests, with which parameters and actions.',
    properties: {
      matchResources: ref('MatchResources', 'Narrows the requests the policy applies to.'),
      paramRef: ref('ParamRef', 'The parameters.'),
      policyName: str('The name of the ValidatingAdmissionPolicy bound.'),
      validationActions: strList('Deny, Warn and/or Audit: what a failed validation does.', 'set'),
    },
  },
  [names.vapb]: kindSchema('ValidatingAdmissionPolicyBinding', 'Binds a ValidatingAdmissionPolicy to requests, with parameters.', {
    spec: ref('ValidatingAdmissionPolicyBindingSpec', 'The binding.', { default: {} }),
  }),
  [names.vapbList]: listSchema('ValidatingAdmissionPolicyBinding', names.vapb),
  [`${P}.ServiceReference`]: {
    type: 'object',
    description: 'A Service by namespace and name (this server reaches it at https://<name>.<namespace>.svc:<port><path>).',
    required: ['namespace', 'name'],
    properties: {
      name: str('The service name.', { default: '' }),
      namespace: str('The service namespace.', { default: '' }),
      path: str('The URL path requests are sent to.'),
      port: { type: 'integer', format: 'int32', description: 'The port (default 443).' },
    },
  },
  [`${P}.WebhookClientConfig`]: {
    type: 'object',
    description: 'How to reach a webhook over TLS: a URL or a service, and the CA to verify it.',
    properties: {
      caBundle: { type: 'string', format: 'byte', description: 'PEM CA certificates (base64 in JSON) the webhook\'s serving certificate is verified against; the system roots when empty.' },
      service: ref('ServiceReference', 'A service to call.'),
      url: str('The https URL to call (no user, query or fragment).'),
    },
  },
  [`${P}.ValidatingWebhook`]: { type: 'object', description: 'A validating admission webhook.', required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'], properties: webhookProperties(false) },
  [`${P}.MutatingWebhook`]: { type: 'object', description: 'A mutating admission webhook.', required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'], properties: webhookProperties(true) },
  [names.vwc]: kindSchema('ValidatingWebhookConfiguration', 'Validating admission webhooks.', { webhooks: list('ValidatingWebhook', 'The webhooks.', ['name']) }),
  [names.vwcList]: listSchema('ValidatingWebhookConfiguration', names.vwc),
  [names.mwc]: kindSchema('MutatingWebhookConfiguration', 'Mutating admission webhooks.', { webhooks: list('MutatingWebhook', 'The webhooks.', ['name']) }),
  [names.mwcList]: listSchema('MutatingWebhookConfiguration', names.mwc),
};
