// Every file of examples/ is used by a page and proven to work with the server
// (docs/docs-tests.md): most are applied by the pages' own commands (test/docs/pages-run.test.ts);
// the two that need a service outside the server are applied here against loopback stand-ins:
// the GitHub Actions authentication configuration against a real OIDC issuer on 127.0.0.1 (its
// issuer URL replaced, tests reach no outside host; the rest of the file as it is), and the
// authorization configuration against a real SubjectAccessReview webhook on 127.0.0.1 (its
// kubeconfig path replaced).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { readBlocks, SHELL_LANGS } from './doc-blocks.js';
import { coveredPages, repo } from './pages.js';
import { startServer, whoami, type TestServer } from '../e2e/harness.js';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { startSarWebhook, type SarWebhook } from '../support/sar-webhook.js';

/** Examples applied by this file, not by a page's commands. */
const APPLIED_HERE = ['examples/authentication/github-actions.yaml', 'examples/authorization/config.yaml'];
/** Examples run by another test, named with it. */
const RUN_ELSEWHERE: Record<string, string> = {
  'examples/testing-with/servicecidrs.test.mjs': 'test/packaging/install.test.ts runs it against the installed package',
};

function filesUnder(dir: string): string[] {
  return readdirSync(join(repo, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(repo, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

const examples = filesUnder('examples').filter((f) => f !== 'examples/README.md');

test('every example is named by a page and applied by a test', () => {
  const pages = coveredPages().map((p) => readFileSync(join(repo, p), 'utf8'));
  const run = coveredPages()
    .flatMap((p) => readBlocks(repo, p))
    .filter((b) => SHELL_LANGS.has(b.lang) && b.marker?.kind !== 'not-run')
    .map((b) => b.text)
    .join('\n');
  assert.ok(examples.length >= 10, `${examples.length} examples`);
  const unnamed = examples.filter((f) => !pages.some((text) => text.includes(f)));
  const unapplied = examples.filter((f) => !run.includes(f) && !APPLIED_HERE.includes(f) && !RUN_ELSEWHERE[f]);
  assert.deepEqual({ unnamed, unapplied }, { unnamed: [], unapplied: [] });
  for (const f of [...APPLIED_HERE, ...Object.keys(RUN_ELSEWHERE)]) assert.ok(examples.includes(f), `${f} is listed here but is no example`);
});

describe('examples/authentication/github-actions.yaml', () => {
  let issuer: OidcIssuer;
  let server: TestServer;
  let dir: string;

  before(async () => {
    issuer = await startOidcIssuer({ audience: 'platform' });
    dir = mkdtempSync(join(tmpdir(), 'platform-example-authn-'));
    const doc = parseDocument(readFileSync(join(repo, 'examples/authentication/github-actions.yaml'), 'utf8'));
    assert.equal(doc.getIn(['jwt', 0, 'issuer', 'url']), 'https://token.actions.githubusercontent.com');
    doc.setIn(['jwt', 0, 'issuer', 'url'], issuer.url);
    doc.setIn(['jwt', 0, 'issuer', 'certificateAuthority'], issuer.caPem);
    writeFileSync(join(dir, 'authn.yaml'), doc.toString());
    server = await startServer({ args: ['--authentication-config', join(dir, 'authn.yaml')] });
  });
  after(async () => {
    await server?.stop();
    await issuer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const workflowToken = (claims: Record<string, unknown> = {}) =>
    issuer.token({ sub: 'repo:acme/deploy:ref:refs/heads/main', repository: 'acme/deploy', ref: 'refs/heads/main', workflow: 'deploy', ...claims });

  test('a workflow of acme/deploy on main is the user the page says', async () => {
    // The first token may meet the issuer's keys still being fetched (start-up never waits for them).
    let r = await whoami(server, await workflowToken());
    for (let i = 0; i < 50 && r.status === 401; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await whoami(server, await workflowToken());
    }
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, { username: 'github:acme/deploy:refs/heads/main', groups: ['github-actions', 'system:authenticated'], extra: { 'example.com/workflow': ['deploy'] } });
  });

  test('another repository, another branch or another audience gets 401', async () => {
    for (const claims of [{ repository: 'acme/other' }, { ref: 'refs/heads/dev' }, { aud: 'kubernetes' }]) {
      const r = await whoami(server, await workflowToken(claims));
      assert.equal(r.status, 401, JSON.stringify(claims));
    }
  });
});

describe('examples/authorization/config.yaml', () => {
  let webhook: SarWebhook;
  let server: TestServer;
  let dir: string;
  const TOKENS = join(repo, 'examples/authentication/tokens.csv');
  const VERA = 'vera-token-7Qm2xK9pL4';

  before(async () => {
    webhook = await startSarWebhook((review) => ({ status: { allowed: review.spec.resourceAttributes?.verb === 'list', reason: 'the policy service says so' } }));
    dir = mkdtempSync(join(tmpdir(), 'platform-example-authz-'));
    const text = readFileSync(join(repo, 'examples/authorization/config.yaml'), 'utf8');
    assert.match(text, /kubeConfigFile: \/etc\/platform\/policy-webhook\.kubeconfig/);
    writeFileSync(join(dir, 'authz.yaml'), text.replace('/etc/platform/policy-webhook.kubeconfig', webhook.kubeconfigPath));
    server = await startServer({ args: ['--token-auth-file', TOKENS, '--authorization-config', join(dir, 'authz.yaml')] });
  });
  after(async () => {
    await server?.stop();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('networking.platform.io goes to the webhook (its v1 review), as the match conditions say', async () => {
    const list = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs', { token: VERA });
    assert.equal(list.status, 200, list.text);
    const create = await server.request('POST', '/apis/networking.platform.io/v1/servicecidrs', { token: VERA, body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'x' }, spec: { cidrs: ['10.96.0.0/16'] } } });
    assert.equal(create.status, 403, create.text);
    assert.match(create.json.message, /the policy service says so/);
    const reviews = webhook.requests.map((r) => r.json);
    assert.deepEqual(
      reviews.map((r) => [r.apiVersion, r.spec.user, r.spec.resourceAttributes.verb, r.spec.resourceAttributes.group]),
      [
        ['authorization.k8s.io/v1', 'vera', 'list', 'networking.platform.io'],
        ['authorization.k8s.io/v1', 'vera', 'create', 'networking.platform.io'],
      ],
    );
  });

  test('other groups skip the webhook and reach RBAC (the built-in roles let users read ClusterTrustBundles)', async () => {
    const before = webhook.requests.length;
    const r = await server.request('GET', '/apis/certificates.platform.io/v1beta1/clustertrustbundles', { token: VERA });
    assert.equal(r.status, 200, r.text);
    assert.equal(webhook.requests.length, before, 'the webhook was not asked');
  });
});
