import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from './flags.js';

const parse = (...args: string[]) => parseFlags(args, 'test').authentication;

test("--oidc-* flags: kube's defaults and combination rules", () => {
  assert.deepEqual(parse('--oidc-issuer-url', 'https://i', '--oidc-client-id', 'c', '--oidc-required-claim', 'a=b=c', '--oidc-required-claim', 'd=e').oidc, {
    issuerURL: 'https://i',
    clientID: 'c',
    caFile: undefined,
    usernameClaim: 'sub',
    usernamePrefix: '',
    groupsClaim: '',
    groupsPrefix: '',
    requiredClaims: { a: 'b=c', d: 'e' },
    signingAlgs: ['RS256'],
  });
  assert.deepEqual(parse('--oidc-issuer-url', 'https://i', '--oidc-client-id', 'c', '--oidc-signing-algs', 'RS256,ES256', '--oidc-signing-algs', 'PS256').oidc?.signingAlgs, ['RS256', 'ES256', 'PS256']);
  assert.throws(() => parse('--oidc-groups-claim', 'g'), { message: 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set' });
  assert.throws(() => parse('--authentication-config', 'f', '--oidc-username-claim', 'email'), { message: 'authentication-config file and oidc-* flags are mutually exclusive' });
  assert.equal(parse().oidc, undefined);
});

test('--authentication-token-webhook-*: v1beta1 and 2m by default; other versions refused', () => {
  assert.deepEqual(parse('--authentication-token-webhook-config-file', 'k').tokenWebhook, { configFile: 'k', version: 'v1beta1', cacheTtlMs: 120_000 });
  assert.equal(parse('--authentication-token-webhook-config-file', 'k', '--authentication-token-webhook-version', 'v1', '--authentication-token-webhook-cache-ttl', '10s').tokenWebhook?.cacheTtlMs, 10_000);
  assert.throws(() => parse('--authentication-token-webhook-config-file', 'k', '--authentication-token-webhook-version', 'v2'), { message: 'unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"' });
});
