import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAuthenticationConfig } from './authentication-config-file.js';

const head = 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n';
const jwt = (body: string) => `${head}jwt:\n${body}`;
const ok = `- issuer: {url: "https://a.example", audiences: [x]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`;

const fails = (text: string, message: string | RegExp) => assert.throws(() => parseAuthenticationConfig(text, ['https://sa.example']), { message });

test('v1alpha1 and v1beta1 are served; v1 (1.34) and other kinds are not', () => {
  assert.equal(parseAuthenticationConfig(jwt(ok), []).length, 1);
  assert.equal(parseAuthenticationConfig(jwt(ok).replace('v1beta1', 'v1alpha1'), []).length, 1);
  fails(jwt(ok).replace('v1beta1', 'v1'), /^no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io\/v1"/);
  fails('', 'empty config data');
  fails(`${head}jwt: []\nextra: 1\n`, 'strict decoding error: unknown field "extra"');
  fails(jwt(`- issuer: {url: "https://a.example", audiences: [x], bogus: 1}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`), 'strict decoding error: unknown field "jwt[0].issuer.bogus"');
});

test("kube's validation messages, aggregated as kube prints them", () => {
  fails(jwt(ok.replace('https://a.example', 'http://a.example')), 'jwt[0].issuer.url: Invalid value: "http://a.example": URL scheme must be https');
  fails(jwt(ok.replace('https://a.example', 'https://sa.example')), 'jwt[0].issuer.url: Invalid value: "https://sa.example": URL must not overlap with disallowed issuers: [https://sa.example]');
  fails(jwt(ok + ok), 'jwt[1].issuer.url: Duplicate value: "https://a.example"');
  fails(jwt(ok.replace('audiences: [x]', 'audiences: [x, y]')), 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences');
  fails(jwt(ok.replace('audiences: [x]', 'audiences: []')), 'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required');
  fails(jwt(ok.replace(', prefix: ""', '')), 'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
  fails(jwt(ok.replace('{claim: sub, prefix: ""}', '{}')), 'jwt[0].claimMappings.username: Required value: claim or expression is required');
  fails(
    jwt(ok.replace('{claim: sub, prefix: ""}', '{expression: "claims.email"}')),
    /^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims\.email": claims\.email_verified must be used in claimMappings\.username\.expression/,
  );
  fails(
    jwt(`${ok}  claimValidationRules: [{claim: a, expression: "true"}]\n`),
    'jwt[0].claimValidationRules[0]: Invalid value: "a": claim and expression can\'t both be set',
  );
  fails(jwt(`${ok}  claimMappings: {username: {claim: sub, prefix: ""}, extra: [{key: "kubernetes.io/x", valueExpression: "claims.a"}]}\n`).replace(/  claimMappings: \{username: \{claim: sub, prefix: ""\}\}\n/, ''), /k8s\.io, kubernetes\.io and their subdomains are reserved for Kubernetes use/);
  // Several errors: kube's aggregate brackets them.
  fails(jwt(ok.replace('https://a.example', 'http://a.example').replace('audiences: [x]', 'audiences: []')), /^\[jwt\[0\]\.issuer\.url: .*, jwt\[0\]\.issuer\.audiences: Required value/);
});

test('a CEL compile error names the rule; nested comprehensions exceed the cost bound', () => {
  fails(jwt(`${ok}  claimValidationRules: [{expression: "claims.sub +", message: m}]\n`), /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims\.sub \+": compilation failed: /);
  fails(jwt(`${ok}  userValidationRules: [{expression: "claims.sub == 'x'"}]\n`), /^jwt\[0\]\.userValidationRules\[0\]\.expression: Invalid value: .*undeclared reference to 'claims'/);
  fails(
    jwt(`${ok}  claimValidationRules: [{expression: "claims.groups.all(g, claims.groups.exists(h, h == g))"}]\n`),
    /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: .*cost limit: comprehensions .* may not be nested/,
  );
  const [a] = parseAuthenticationConfig(jwt(`${ok}  claimValidationRules: [{expression: "claims.groups.filter(g, g.startsWith('a')).all(g, g.size() > 1)"}]\n`), []);
  assert.equal(a!.rules.claimValidation.length, 1, 'chained (not nested) comprehensions are fine');
});
