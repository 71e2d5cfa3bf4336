// The --oidc-* flags against a real OIDC issuer over HTTPS on loopback: start-up while the issuer
// is down (401 until the background discovery succeeds), kube's claim mappings and username
// prefix defaulting, key rotation, every kind of bad token (401, never 500), the JWT metrics,
// and kubectl (auth whoami, get, apply) with an issuer's token.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { startServer, whoami, type TestServer } from './harness.js';
import { kubectlFor, writeTokenKubeconfig } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { makeSigningKey, startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { eventually } from '../support/polling.js';

const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: everything}
rules:
- {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
- {verbs: ["*"], nonResourceURLs: ["*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: oidc-admins}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: everything}
subjects: [{kind: Group, name: "oidc:platform-admins"}]
`;
const kubectlBinary = requireTool('kubectl', 'the OIDC end-to-end tests drive kubectl with an issuer token');

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('OIDC flags', () => {
  let issuer: OidcIssuer;
  let other: OidcIssuer;
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-oidc-'));
    issuer = await startOidcIssuer({ audience: 'platform' });
    other = await startOidcIssuer({ audience: 'platform' });
    // Published from the start, but ES256 is not in --oidc-signing-algs (default RS256).
    issuer.keys.push(await makeSigningKey('ES256'));
    writeFileSync(join(dir, 'oidc-ca.pem'), issuer.caPem);
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    // Down while the server starts: start-up must not wait for it.
    await issuer.peer.setDown(true);
    server = await startServer({
      args: [
        '--oidc-issuer-url', issuer.url,
        '--oidc-client-id', 'platform',
        '--oidc-ca-file', join(dir, 'oidc-ca.pem'),
        '--oidc-groups-claim', 'groups',
        '--oidc-groups-prefix', 'oidc:',
        '--oidc-required-claim', 'tenant=acme',
        '--authorization-policy-file', join(dir, 'policy.yaml'),
      ],
    });
  });
  after(async () => {
    await server?.stop();
    await issuer?.stop();
    await other?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const good = (claims: Record<string, unknown> = {}) => issuer.token({ sub: 'alice', tenant: 'acme', groups: ['platform-admins', 'devs'], ...claims });

  test('the issuer down at start-up: 401 until the background discovery succeeds, then the user', async () => {
    const token = await good();
    const early = await whoami(server, token);
    assert.equal(early.status, 401, early.text);
    assert.equal(early.json.reason, 'Unauthorized');
    await issuer.peer.setDown(false);
    // kube retries every 10 s.
    const r = await eventually(() => whoami(server, token), (x) => x.status === 201, 30_000, 500);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, {
      // --oidc-username-claim sub (default) without a prefix flag: prefixed with the issuer URL and '#'.
      username: `${issuer.url}#alice`,
      groups: ['oidc:platform-admins', 'oidc:devs', 'system:authenticated'],
    });
  });

  test('a single-string groups claim is one group', async () => {
    const r = await whoami(server, await good({ groups: 'solo' }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo.groups, ['oidc:solo', 'system:authenticated']);
  });

  test('every kind of bad token is 401 (never 500)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stranger = await makeSigningKey();
    const ecKey = issuer.keys.find((k) => k.alg === 'ES256')!;
    const real = issuer.keys.find((k) => k.alg === 'RS256')!;
    const publicPem = createPublicKey({ key: real.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const payload = { iss: issuer.url, aud: 'platform', sub: 'mallory', tenant: 'acme', iat: now, exp: now + 600 };
    const cases: [string, string][] = [
      ['expired a second ago (no leeway on exp)', await good({ exp: now - 2 })],
      ['not valid for 5 more minutes (nbf)', await good({ nbf: now + 300 })],
      ['wrong audience', await good({ aud: 'someone-else' })],
      ['an audience list without ours', await good({ aud: ['a', 'b'] })],
      ['wrong issuer', await good({ iss: 'https://issuer.invalid' })],
      ['unknown key (kid not in the JWKS)', await issuer.token({ sub: 'alice', tenant: 'acme' }, { key: stranger })],
      ['a key of the other issuer with this issuer\'s kid', await issuer.token({ sub: 'alice', tenant: 'acme' }, { key: { ...other.keys[0]!, kid: real.kid } })],
      ['the other issuer\'s own token', await other.token({ sub: 'alice', tenant: 'acme' })],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`],
      ['alg none with a signature part', `${b64({ alg: 'none', kid: real.kid })}.${b64(payload)}.AAAA`],
      ['HS256 with the public key as the secret', await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: real.kid }).sign(new TextEncoder().encode(publicPem))],
      ['ES256 with a published key, not an allowed algorithm', await issuer.token({ sub: 'alice', tenant: 'acme' }, { key: ecKey })],
      ['tampered payload', (await good()).replace(/^([^.]+)\.([^.]+)\./, (_m, h: string) => `${h}.${b64({ ...payload, sub: 'root' })}.`)],
      ['tampered signature', `${(await good()).slice(0, -6)}AAAAAA`],
      ['a huge token (700 KB claim, under the 1 MiB header limit) signed by an unknown key', await issuer.token({ sub: 'alice', tenant: 'acme', padding: 'x'.repeat(700 * 1024) }, { key: stranger })],
      ['sub is a number', await good({ sub: 12345 })],
      ['no sub claim', await good({ sub: undefined })],
      ['groups is a number', await good({ groups: 7 })],
      ['groups holds a non-string', await good({ groups: ['ok', 3] })],
      ['exp is a string', await good({ exp: String(now + 600) })],
      ['no exp', await good({ exp: undefined })],
      ['aud is a number', await good({ aud: 42 })],
      ['required claim missing', await good({ tenant: undefined })],
      ['required claim with another value', await good({ tenant: 'evil' })],
      ['required claim of the wrong type', await good({ tenant: ['acme'] })],
      ['payload not JSON', `${b64({ alg: 'RS256', kid: real.kid })}.${Buffer.from('not json').toString('base64url')}.AAAA`],
      ['two parts only', `${b64({ alg: 'RS256' })}.${b64(payload)}`],
      ['a JSON (non-compact) token', JSON.stringify(payload)],
    ];
    for (const [name, token] of cases) {
      const r = await whoami(server, token);
      assert.equal(r.status, 401, `${name}: ${r.status} ${r.text.slice(0, 300)}`);
      assert.equal(r.json?.reason, 'Unauthorized', name);
    }
    // A huge token that verifies is a user, as in kube (no size limit below the header limit's).
    assert.equal((await whoami(server, await good({ padding: 'x'.repeat(700 * 1024) }))).status, 201);
    // Past the header limit a token never reaches authentication: 431, as kube-apiserver answers.
    const tooBig = await whoami(server, await good({ padding: 'x'.repeat(1024 * 1024) }));
    assert.equal(tooBig.status, 431);
    assert.doesNotMatch(server.log(), /"statusCode":5\d\d|InternalError/);
  });

  test('key rotation: a token signed with a newly published key is accepted after a JWKS refetch', async () => {
    const before = issuer.jwksFetches();
    const newKey = await issuer.rotate();
    const token = await issuer.token({ sub: 'alice', tenant: 'acme' }, { key: newKey });
    // Refetches are rate-limited (one per 5 s): a fetch just before may make the first try wait.
    const r = await eventually(() => whoami(server, token), (x) => x.status === 201, 20_000, 1000);
    assert.equal(r.status, 201, r.text);
    assert.ok(issuer.jwksFetches() > before, 'the JWKS was fetched again');
    // Without a kid, any published key of the token's algorithm may verify it (two RS256 keys now).
    const noKid = await issuer.token({ sub: 'alice', tenant: 'acme' }, { key: issuer.keys[1]!, header: { kid: undefined } });
    assert.equal((await whoami(server, noKid)).status, 201);
  });

  test('unknown kids do not hammer the issuer: refetches are rate-limited', async () => {
    const before = issuer.jwksFetches();
    const stranger = await makeSigningKey();
    for (let i = 0; i < 20; i++) assert.equal((await whoami(server, await issuer.token({ sub: `x${i}`, tenant: 'acme' }, { key: stranger }))).status, 401);
    assert.ok(issuer.jwksFetches() - before <= 2, `${issuer.jwksFetches() - before} fetches for 20 tokens`);
  });

  test('the JWT latency metric is recorded per issuer hash, as kube labels it', async () => {
    const m = await server.request('GET', '/metrics');
    assert.match(m.text, /apiserver_authentication_jwt_authenticator_latency_seconds_count\{result="success",jwt_issuer_hash="sha256:[0-9a-f]{64}"\} [1-9]/);
    assert.match(m.text, /apiserver_authentication_jwt_authenticator_latency_seconds_count\{result="failure",jwt_issuer_hash="sha256:[0-9a-f]{64}"\} [1-9]/);
  });

  describe('kubectl with an issuer token', { skip: !kubectlBinary }, () => {
    test('auth whoami, get and apply', async () => {
      const kubeconfig = writeTokenKubeconfig(join(dir, 'oidc.kubeconfig'), server, await good());
      const kubectl = kubectlFor(kubectlBinary!, kubeconfig);
      const me = await kubectl(['auth', 'whoami']);
      assert.equal(me.code, 0, me.stderr);
      assert.match(me.stdout, new RegExp(`Username\\s+${issuer.url.replace(/[.:/]/g, '\\$&')}#alice\\n`));
      assert.match(me.stdout, /Groups\s+\[oidc:platform-admins oidc:devs system:authenticated\]/);
      const manifest = kubectl.manifest('cidr.yaml', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'oidc-made' }, spec: { cidrs: ['10.77.0.0/24'] } });
      const applied = await kubectl(['apply', '-f', manifest]);
      assert.equal(applied.code, 0, applied.stderr);
      const got = await kubectl(['get', 'servicecidrs', 'oidc-made', '-o', 'jsonpath={.spec.cidrs[0]}']);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(got.stdout, '10.77.0.0/24');
    });
  });
});
