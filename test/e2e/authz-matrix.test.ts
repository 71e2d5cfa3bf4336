// Every identity × every verb of both kinds and ServiceCIDR's status: the exact code of each
// cell, so that nobody gets in where the policy does not let them. Writes are dry runs (they
// pass authorization and admission like real ones) so every cell sees the same objects.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer, type RequestOptions } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const SA = 'system:serviceaccount:team-a:builder';
const RBAC = 'rbac.authorization.k8s.io';

const bind = (name: string, role: string, subjects: string) =>
  `---\napiVersion: ${RBAC}/v1\nkind: ClusterRoleBinding\nmetadata: {name: ${name}}\nroleRef: {apiGroup: ${RBAC}, kind: ClusterRole, name: ${role}}\nsubjects: ${subjects}\n`;
const role = (name: string, rules: string) => `---\napiVersion: ${RBAC}/v1\nkind: ClusterRole\nmetadata: {name: ${name}}\nrules: ${rules}\n`;

const POLICY = [
  role('cidr-reader', '[{verbs: [get, list, watch], apiGroups: [networking.platform.io], resources: [servicecidrs]}]'),
  role('cidr-admin', '[{verbs: ["*"], apiGroups: [networking.platform.io], resources: [servicecidrs, servicecidrs/status]}]'),
  role('bundle-writer', '[{verbs: [create, update, patch, delete, deletecollection], apiGroups: [certificates.platform.io], resources: [clustertrustbundles]}]'),
  role('attest-one', '[{verbs: [attest], apiGroups: [certificates.platform.io], resources: [signers], resourceNames: [example.com/one]}]'),
  role('attest-domain', '[{verbs: [attest], apiGroups: [certificates.platform.io], resources: [signers], resourceNames: ["example.com/*"]}]'),
  bind('alice-reads', 'cidr-reader', '[{kind: User, name: alice}]'),
  bind('wendy-cidrs', 'cidr-admin', '[{kind: User, name: wendy}]'),
  bind('writers', 'bundle-writer', '[{kind: User, name: wendy}, {kind: User, name: sigrid}, {kind: User, name: dom}]'),
  bind('sigrid-attests', 'attest-one', '[{kind: User, name: sigrid}]'),
  bind('dom-attests', 'attest-domain', '[{kind: User, name: dom}]'),
  `---\napiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: sa-impersonator, namespace: team-a}\nrules: [{verbs: [impersonate], apiGroups: [""], resources: [serviceaccounts]}]\n`,
  `---\napiVersion: ${RBAC}/v1\nkind: RoleBinding\nmetadata: {name: nsuser-impersonates, namespace: team-a}\nroleRef: {apiGroup: ${RBAC}, kind: Role, name: sa-impersonator}\nsubjects: [{kind: User, name: nsuser}]\n`,
].join('');

type Identity = 'anonymous' | 'bad-token' | 'admin' | 'pat' | 'alice' | 'wendy' | 'sigrid' | 'dom' | 'sa-as-admin' | 'nsuser' | 'nsuser-as-sa';

const IDENTITIES: Record<Identity, RequestOptions> = {
  anonymous: { anonymous: true },
  'bad-token': { token: 'nope' },
  admin: {},
  pat: { token: 'pat-token' },
  alice: { token: 'alice-token' },
  wendy: { token: 'wendy-token' },
  sigrid: { token: 'sigrid-token' },
  dom: { token: 'dom-token' },
  'sa-as-admin': { headers: { 'Impersonate-User': SA } },
  nsuser: { token: 'nsuser-token' },
  'nsuser-as-sa': { token: 'nsuser-token', headers: { 'Impersonate-User': SA } },
};

type Cell = { name: string; method: string; path: string; body?: () => object; contentType?: string; ok: number; allowed: (id: Identity) => boolean | 'attest' };

const everyone = () => true;
const only = (...ids: Identity[]) => (id: Identity) => id === 'admin' || ids.includes(id);
/** Bundle writes tied to example.com/one: RBAC first, then the attest check. */
const signerWrite = (id: Identity): boolean | 'attest' => (id === 'admin' || id === 'sigrid' || id === 'dom' ? true : id === 'wendy' ? 'attest' : false);

describe('authorization matrix', () => {
  let server: TestServer;
  let dir: string;
  const fixtures: Record<string, any> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-matrix-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), ['pat', 'alice', 'wendy', 'sigrid', 'dom', 'nsuser'].map((u) => `${u}-token,${u},uid-${u}`).join('\n'));
    server = await startServer({ args: ['--controllers=-service-cidr-controller', '--authorization-policy-file', join(dir, 'policy.yaml'), '--token-auth-file', join(dir, 'tokens.csv')] });
    const ca = (await makeCACert()).pem;
    const made = async (path: string, body: object) => {
      const r = await server.request('POST', path, { body });
      assert.equal(r.status, 201, r.text);
      return r.json;
    };
    fixtures.plain = await made(CTB, { metadata: { name: 'plain', labels: { m: 'x' } }, spec: { trustBundle: ca } });
    fixtures.signed = await made(CTB, { metadata: { name: 'example.com:one:b' }, spec: { signerName: 'example.com/one', trustBundle: ca } });
    fixtures.cidr = await made(SC, { metadata: { name: 'matrix', labels: { m: 'x' } }, spec: { cidrs: ['10.0.0.0/8'] } });
    fixtures.ca = ca;
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const dry = (p: string) => `${p}${p.includes('?') ? '&' : '?'}dryRun=All`;
  const merge = 'application/merge-patch+json';
  const cells: Cell[] = [
    { name: 'ctb get', method: 'GET', path: `${CTB}/plain`, ok: 200, allowed: everyone },
    { name: 'ctb list', method: 'GET', path: CTB, ok: 200, allowed: everyone },
    { name: 'ctb watch', method: 'GET', path: `${CTB}?watch=true&timeoutSeconds=1`, ok: 200, allowed: everyone },
    { name: 'ctb create', method: 'POST', path: dry(CTB), body: () => ({ metadata: { name: 'new' }, spec: { trustBundle: fixtures.ca } }), ok: 201, allowed: only('wendy', 'sigrid', 'dom') },
    {
      name: 'ctb create with signer',
      method: 'POST',
      path: dry(CTB),
      body: () => ({ metadata: { name: 'example.com:one:new' }, spec: { signerName: 'example.com/one', trustBundle: fixtures.ca } }),
      ok: 201,
      allowed: signerWrite,
    },
    { name: 'ctb update', method: 'PUT', path: dry(`${CTB}/plain`), body: () => fixtures.plain, ok: 200, allowed: only('wendy', 'sigrid', 'dom') },
    { name: 'ctb patch', method: 'PATCH', path: dry(`${CTB}/plain`), body: () => ({ metadata: { labels: { p: '1' } } }), contentType: merge, ok: 200, allowed: only('wendy', 'sigrid', 'dom') },
    { name: 'ctb patch with signer', method: 'PATCH', path: dry(`${CTB}/example.com:one:b`), body: () => ({ metadata: { labels: { p: '1' } } }), contentType: merge, ok: 200, allowed: signerWrite },
    { name: 'ctb delete', method: 'DELETE', path: dry(`${CTB}/plain`), ok: 200, allowed: only('wendy', 'sigrid', 'dom') },
    { name: 'ctb deletecollection', method: 'DELETE', path: dry(`${CTB}?labelSelector=m%3Dx`), ok: 200, allowed: only('wendy', 'sigrid', 'dom') },
    { name: 'scidr get', method: 'GET', path: `${SC}/matrix`, ok: 200, allowed: only('alice', 'wendy') },
    { name: 'scidr list', method: 'GET', path: SC, ok: 200, allowed: only('alice', 'wendy') },
    { name: 'scidr watch', method: 'GET', path: `${SC}?watch=true&timeoutSeconds=1`, ok: 200, allowed: only('alice', 'wendy') },
    { name: 'scidr create', method: 'POST', path: dry(SC), body: () => ({ metadata: { name: 'new' }, spec: { cidrs: ['10.1.0.0/16'] } }), ok: 201, allowed: only('wendy') },
    { name: 'scidr update', method: 'PUT', path: dry(`${SC}/matrix`), body: () => fixtures.cidr, ok: 200, allowed: only('wendy') },
    { name: 'scidr patch', method: 'PATCH', path: dry(`${SC}/matrix`), body: () => ({ metadata: { labels: { p: '1' } } }), contentType: merge, ok: 200, allowed: only('wendy') },
    { name: 'scidr delete', method: 'DELETE', path: dry(`${SC}/matrix`), ok: 200, allowed: only('wendy') },
    { name: 'scidr deletecollection', method: 'DELETE', path: dry(`${SC}?labelSelector=m%3Dx`), ok: 200, allowed: only('wendy') },
    { name: 'scidr status get', method: 'GET', path: `${SC}/matrix/status`, ok: 200, allowed: only('wendy') },
    { name: 'scidr status update', method: 'PUT', path: dry(`${SC}/matrix/status`), body: () => fixtures.cidr, ok: 200, allowed: only('wendy') },
    { name: 'scidr status patch', method: 'PATCH', path: dry(`${SC}/matrix/status`), body: () => ({ status: { conditions: [] } }), contentType: merge, ok: 200, allowed: only('wendy') },
  ];

  for (const id of Object.keys(IDENTITIES) as Identity[]) {
    test(id, async () => {
      const failures: string[] = [];
      for (const cell of cells) {
        const opts: RequestOptions = { ...IDENTITIES[id], headers: { ...IDENTITIES[id].headers } };
        if (cell.body) opts.body = cell.body();
        if (cell.contentType) opts.headers!['Content-Type'] = cell.contentType;
        const r = await server.request(cell.method, cell.path, opts);
        const verdict = id === 'anonymous' || id === 'bad-token' ? 401 : cell.allowed(id);
        const want = verdict === 401 ? 401 : verdict === true ? cell.ok : 403;
        if (r.status !== want) failures.push(`${cell.name}: got ${r.status}, want ${want}: ${r.text.slice(0, 160)}`);
        if (verdict === 'attest' && !/user not permitted to attest for signerName "example.com\/one"/.test(r.json?.message ?? '')) {
          failures.push(`${cell.name}: expected the attest denial, got ${r.json?.message}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  }
});
