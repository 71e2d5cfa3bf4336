import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from './flags.js';

const parse = (...args: string[]) => parseFlags(args, 'test').authorization;
const error = (...args: string[]): string => {
  try {
    parseFlags(args, 'test');
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('authorization flags (kube-apiserver 1.33 validation)', () => {
  test('default is RBAC; modes keep their order; webhook flags with their defaults', () => {
    assert.deepEqual(parse(), { kind: 'modes', modes: ['RBAC'] });
    assert.deepEqual(parse('--authorization-mode', 'Node,Webhook,RBAC', '--authorization-webhook-config-file', '/w.kubeconfig'), {
      kind: 'modes',
      modes: ['Node', 'Webhook', 'RBAC'],
      webhook: { configFile: '/w.kubeconfig', version: 'v1beta1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 },
    });
    const w = parse('--authorization-mode=Webhook', '--authorization-webhook-config-file=/w', '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=0', '--authorization-webhook-cache-unauthorized-ttl=1m30s');
    assert.deepEqual(w.kind === 'modes' && w.webhook, { configFile: '/w', version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 90_000 });
  });

  test("kube's messages", () => {
    assert.equal(error('--authorization-mode', 'Magic'), 'authorization-mode "Magic" is not a valid mode');
    assert.equal(error('--authorization-mode', 'Webhook'), "authorization-mode Webhook's authorization config file not passed");
    assert.equal(error('--authorization-webhook-config-file', '/w'), 'cannot specify --authorization-webhook-config-file without mode Webhook');
    assert.equal(error('--authorization-mode', 'RBAC,RBAC'), 'authorization-mode [RBAC RBAC] has mode specified more than once');
    assert.equal(error('--authorization-mode', ''), 'at least one authorization-mode must be passed');
    assert.equal(error('--authorization-mode', 'AlwaysAllow', '--authorization-policy-file', '/p.yaml'), 'cannot specify --authorization-policy-file without mode RBAC');
    assert.equal(
      error('--authorization-mode', 'Webhook', '--authorization-webhook-config-file', '/w', '--authorization-webhook-version', 'v2'),
      'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"',
    );
    assert.match(error('--authorization-mode', 'ABAC'), /^authorization-mode "ABAC" is not supported by platform-apiserver/);
    assert.equal(error('--authorization-mode', 'Magic,Webhook'), '[authorization-mode "Magic" is not a valid mode, authorization-mode Webhook\'s authorization config file not passed]');
  });
});

describe('TLS flags', () => {
  const tls = (...args: string[]) => parseFlags(args, 'test').tls;
  test("kube's names and Go's defaults", () => {
    assert.equal(tls().minVersion, 'TLSv1.2');
    assert.match(tls().ciphers, /^ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:/);
    assert.equal(tls('--tls-min-version', 'VersionTLS13').minVersion, 'TLSv1.3');
    const weak = tls('--tls-cipher-suites', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256');
    assert.deepEqual(weak.insecure, ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256']);
    assert.equal(weak.ciphers, 'ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256');
    assert.equal(error('--tls-min-version', 'TLS1.2'), 'unknown tls version "TLS1.2"');
    assert.equal(error('--tls-cipher-suites', 'TLS_FANCY'), "Cipher suite TLS_FANCY not supported or doesn't exist");
  });
});
