// The examples of docs/admission.md, run as the page shows them: each file in
// examples/admission/ applied with kubectl to a real server, and the output the page quotes
// compared with what kubectl prints (so the page stays true). The label webhook example runs as
// its own process.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';
import { kubectlFor, writeTokenKubeconfig, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { eventually, waitUntil } from '../support/polling.js';
import { CTB, SC, serviceCIDR, untilAnswered } from '../support/admission-fixtures.js';
import { makeCACert } from '../fixtures/certs.js';

const EXAMPLES = join(import.meta.dirname, '../../examples/admission');
const example = (name: string) => join(EXAMPLES, name);
const kubectlBinary = requireTool('kubectl', 'the admission examples are run with kubectl');

describe('docs/admission.md examples', { skip: !kubectlBinary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  let dir: string;
  let webhook: ChildProcess | undefined;

  before(async () => {
    server = await startInProcessServer();
    dir = mkdtempSync(join(tmpdir(), 'platform-admission-examples-'));
    kubectl = kubectlFor(kubectlBinary!, writeTokenKubeconfig(join(dir, 'kubeconfig'), server, server.token));
  });
  after(async () => {
    webhook?.kill('SIGKILL');
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const applyExample = async (file: string) => {
    const r = await kubectl(['apply', '-f', example(file)]);
    assert.equal(r.code, 0, r.stderr);
    return r;
  };
  const removeExample = async (file: string) => assert.equal((await kubectl(['delete', '-f', example(file)])).code, 0);

  test('the ServiceCIDR range policy', async () => {
    const applied = await applyExample('servicecidr-range-policy.yaml');
    assert.equal(applied.stdout, 'validatingadmissionpolicy.admissionregistration.k8s.io/servicecidrs.default created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/servicecidrs-binding created\n');
    await untilAnswered(server, SC, serviceCIDR('probe', ['192.168.0.0/24']), 422);
    const r = await kubectl(['apply', '-f', example('servicecidr-outside.yaml')]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "The servicecidrs \"newcidr2\" is invalid: : ValidatingAdmissionPolicy 'servicecidrs.default' with binding 'servicecidrs-binding' denied request: failed expression: object.spec.cidrs.all(newCIDR, variables.allowed.exists(allowedCIDR, cidr(allowedCIDR).containsCIDR(newCIDR)))\n",
    );
    await removeExample('servicecidr-range-policy.yaml');
  });

  test('the team label warning', async () => {
    await applyExample('team-label-warning.yaml');
    await eventually(() => server.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('probe', ['10.96.20.0/24']) }), (x) => x.headers.warning !== undefined, 15_000, 100);
    const r = await kubectl(['create', '-f', '-'], { stdin: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"unlabelled"},"spec":{"cidrs":["10.96.20.0/24"]}}' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'servicecidrs.team-label' with binding 'servicecidrs.team-label': ServiceCIDR unlabelled has no team label\n");
    assert.equal(r.stdout, 'servicecidr.networking.platform.io/unlabelled created\n');
    await removeExample('team-label-warning.yaml');
  });

  test('the ranges as a param', async () => {
    await applyExample('servicecidr-params-policy.yaml');
    await untilAnswered(server, SC, serviceCIDR('probe', ['10.200.0.0/24']), 422);
    const r = await kubectl(['create', '-f', '-'], { stdin: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"elsewhere"},"spec":{"cidrs":["10.200.0.0/24"]}}' });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "The servicecidrs \"elsewhere\" is invalid: : ValidatingAdmissionPolicy 'servicecidrs.within-params' with binding 'servicecidrs.within-params' denied request: ServiceCIDR elsewhere is outside the ranges of allowed-ranges\n");
    await removeExample('servicecidr-params-policy.yaml');
  });

  test('the ClusterTrustBundle signer policy', async () => {
    await applyExample('clustertrustbundle-signer-policy.yaml');
    const caPem = (await makeCACert()).pem;
    const bundle = { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'other.org:issuer:one' }, spec: { signerName: 'other.org/issuer', trustBundle: caPem } };
    const r = await untilAnswered(server, CTB, bundle, 403);
    assert.equal(r.json.message, "clustertrustbundles.certificates.platform.io \"other.org:issuer:one\" is forbidden: ValidatingAdmissionPolicy 'clustertrustbundles.example-signers' with binding 'clustertrustbundles.example-signers' denied request: signer other.org/issuer is not allowed here");
    await removeExample('clustertrustbundle-signer-policy.yaml');
  });

  test('the label webhook', async () => {
    const tls = await ensureServingCertificates({ dir: join(dir, 'webhook-tls'), hosts: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), tls.certPem);
    writeFileSync(join(dir, 'tls.key'), tls.keyPem);
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    webhook = spawn(process.execPath, [example('label-webhook.mjs')], { env: { ...process.env, TLS_CERT: join(dir, 'tls.crt'), TLS_KEY: join(dir, 'tls.key'), PORT: String(port) }, stdio: 'inherit' });
    const config = readFileSync(example('label-webhook.yaml'), 'utf8').replace('caBundle: CA_BUNDLE', `caBundle: ${Buffer.from(tls.caCertPem).toString('base64')}`).replace('https://127.0.0.1:8443/mutate', `https://127.0.0.1:${port}/mutate`);
    const applied = await kubectl(['apply', '-f', kubectl.manifest('label-webhook.yaml', config)]);
    assert.equal(applied.code, 0, applied.stderr);
    let created: Awaited<ReturnType<TestServer['request']>> | undefined;
    await waitUntil('the label webhook labels a new ServiceCIDR', async () => {
      created = await server.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('labelled-by-webhook', ['10.96.30.0/24']) });
      return created.json?.metadata?.labels?.owner === 'platform-team';
    }, 20_000).catch((err: Error) => assert.fail(`${err.message}: last answer ${created?.status} ${created?.text}`));
    assert.deepEqual(created!.json.metadata.labels, { owner: 'platform-team' });
  });
});
