// Validation of the admissionregistration kinds, with the messages of kube's
// pkg/apis/admissionregistration/validation (and CEL compile errors in cel-go's words).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText, type FieldError } from '../../apimachinery/field-error.js';
import { validatePolicy } from '../validatingadmissionpolicies/validation.js';
import { validateBinding } from '../validatingadmissionpolicybindings/validation.js';
import { defaultBindingSpec, defaultPolicySpec, defaultWebhook } from './defaults.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration } from './types.js';
import { validateWebhookConfiguration } from './webhook-validation.js';

const texts = (errs: readonly FieldError[]): string[] => errs.map(fieldErrorText);
const policyErrors = (spec: Record<string, unknown>): string[] => {
  const p = { metadata: { name: 'p' }, spec } as unknown as ValidatingAdmissionPolicy;
  defaultPolicySpec(p.spec);
  return texts(validatePolicy(p));
};
const ALL = { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] };

test('a policy needs matchConstraints and validations or auditAnnotations', () => {
  assert.deepEqual(policyErrors({}), [
    'spec.matchConstraints: Required value',
    'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
    'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
  ]);
});

test('a policy\'s fields and expressions are checked as kube checks them', () => {
  assert.deepEqual(
    policyErrors({
      failurePolicy: 'Maybe',
      paramKind: { apiVersion: 'a/b/c', kind: '' },
      matchConstraints: { resourceRules: [{ apiGroups: [], apiVersions: ['v1'], operations: ['FOO'], resources: ['servicecidrs'] }] },
      variables: [{ name: '1x', expression: 'x' }],
      validations: [{ expression: '1 +', reason: 'Teapot', messageExpression: '1' }],
      auditAnnotations: [{ key: 'bad key', valueExpression: '1' }],
    }),
    [
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'spec.paramKind.kind: Required value',
      'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "FOO": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'spec.matchConstraints.resourceRules[0].apiGroups: Required value',
      'spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier',
      "spec.variables[0].expression: Invalid value: \"x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^",
      'spec.validations[0].expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:3: Syntax error: found + but expecting end of input\n | 1 +\n | ..^',
      'spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int',
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      "spec.auditAnnotations[0].key: Invalid value: \"p/bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int',
    ],
  );
  assert.deepEqual(policyErrors({ matchConstraints: ALL, validations: [{ expression: 'true' }], matchConditions: [{ name: 'a', expression: 'object' }, { name: 'a', expression: 'true' }] }), [
    'spec.matchConditions[0].expression: Invalid value: "object": must evaluate to bool but got dyn',
    'spec.matchConditions[1].name: Duplicate value: "a"',
  ]);
  // params is declared only with a paramKind.
  assert.match(policyErrors({ matchConstraints: ALL, validations: [{ expression: 'params.x == 1' }] })[0]!, /undeclared reference to 'params'/);
  assert.deepEqual(policyErrors({ matchConstraints: ALL, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params.x == 1' }] }), []);
});

test('a binding: policyName, exclusive paramRef fields, and validationActions', () => {
  const b = { metadata: { name: 'b' }, spec: { policyName: '', validationActions: ['Deny', 'Warn', 'Deny', 'Foo'], paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Maybe' } } } as unknown as ValidatingAdmissionPolicyBinding;
  defaultBindingSpec(b.spec);
  assert.deepEqual(texts(validateBinding(b)), [
    'spec.policyName: Required value',
    'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
    'spec.validationActions[2]: Duplicate value: "Deny"',
    'spec.validationActions[3]: Unsupported value: "Foo": supported values: "Audit", "Deny", "Warn"',
    'spec.validationActions: Invalid value: ["Deny","Warn","Deny","Foo"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
  ]);
});

test('webhooks: names, side effects, timeouts, https URLs, review versions, one of url or service', () => {
  const c = {
    metadata: { name: 'w' },
    webhooks: [
      { name: 'bad', clientConfig: { url: 'http://x/y?z=1' }, rules: [], sideEffects: 'Some', admissionReviewVersions: ['v2'], timeoutSeconds: 31 },
      { name: 'a.b.c', clientConfig: {}, sideEffects: 'None', admissionReviewVersions: ['v1'] },
      { name: 'a.b.c', clientConfig: { url: 'https://x', service: { namespace: 'ns', name: 'svc' } }, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Sometimes' },
    ],
  } as unknown as ValidatingWebhookConfiguration;
  for (const w of c.webhooks!) defaultWebhook(w, true);
  assert.deepEqual(texts(validateWebhookConfiguration(c, true)), [
    'webhooks[0].name: Invalid value: "bad": should be a domain with at least three segments separated by dots',
    'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
    "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'webhooks[0].clientConfig.url: Invalid value: "z=1": query parameters are not permitted in the URL',
    'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
    'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
    'webhooks[2].reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"',
    'webhooks[2].clientConfig: Required value: exactly one of url or service is required',
    'webhooks[2].name: Duplicate value: "a.b.c"',
  ]);
});
