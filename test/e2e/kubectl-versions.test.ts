// kubectl 1.27 to 1.33 (the pinned binaries) against one server, in parallel: the write commands
// that read OpenAPI v2 as protobuf on 1.27/1.28 (create, apply, diff, replace, explain, edit) and
// server-side apply; `auth whoami` as a 1.33 cluster answers each; a manifest of the
// wrong group gets kubectl's no-match error. Also /openapi/v2 over HTTP: protobuf, ETag, 304.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';

const PINNED = '/usr/lib/google-cloud-sdk/bin/kubectl';
const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'] as const;
const binaries = Object.fromEntries(VERSIONS.map((v) => [v, requireTool(`${PINNED}.${v}`, `kubectl ${v} is a supported client`)]));
const missing = VERSIONS.some((v) => !binaries[v]);

const scidr = (name: string, cidr: string, labels: Record<string, string> = {}, group = 'networking.platform.io') => ({
  apiVersion: `${group}/v1`,
  kind: 'ServiceCIDR',
  metadata: { name, labels },
  spec: { cidrs: [cidr] },
});

/** Every write command of one kubectl version on its own objects; returns nothing, asserts all. */
async function scenario(version: string, kubectl: Kubectl, editor: string, octet: number): Promise<void> {
  const tag = version.replace('.', '-');
  const ok = (r: { code: number; stdout: string; stderr: string }, stdout: string, what: string) => {
    assert.equal(r.code, 0, `${version} ${what}: ${r.stderr}`);
    assert.equal(r.stdout.trim(), stdout, `${version} ${what}`);
  };
  const created = `created-${tag}`;
  ok(await kubectl(['create', '-f', kubectl.manifest('c.json', scidr(created, `10.${octet}.1.0/24`))]), `servicecidr.networking.platform.io/${created} created`, 'create');

  const applied = `applied-${tag}`;
  const file = (labels: Record<string, string>) => kubectl.manifest('a.json', scidr(applied, `10.${octet}.2.0/24`, labels));
  ok(await kubectl(['apply', '-f', file({ env: 'dev' })]), `servicecidr.networking.platform.io/${applied} created`, 'apply 1');
  ok(await kubectl(['apply', '-f', file({ env: 'prod' })]), `servicecidr.networking.platform.io/${applied} configured`, 'apply 2');
  ok(await kubectl(['apply', '-f', file({ env: 'prod' })]), `servicecidr.networking.platform.io/${applied} unchanged`, 'apply 3');

  const same = await kubectl(['diff', '-f', file({ env: 'prod' })]);
  assert.equal(same.code, 0, `${version} diff unchanged: ${same.stdout}${same.stderr}`);
  assert.equal(same.stdout, '');
  const changed = await kubectl(['diff', '-f', file({ env: 'staging' })]);
  assert.equal(changed.code, 1, `${version} diff changed: ${changed.stderr}`);
  assert.match(changed.stdout, /^-    env: prod$/m);
  assert.match(changed.stdout, /^\+    env: staging$/m);

  const ssa = `ssa-${tag}`;
  ok(await kubectl(['apply', '--server-side', '-f', kubectl.manifest('s.json', scidr(ssa, `10.${octet}.3.0/24`, { by: 'ssa' }))]), `servicecidr.networking.platform.io/${ssa} serverside-applied`, 'apply --server-side');

  const live = JSON.parse((await kubectl(['get', 'scidr', created, '-o', 'json'])).stdout);
  live.metadata.labels = { replaced: 'yes' };
  ok(await kubectl(['replace', '-f', kubectl.manifest('r.json', live)]), `servicecidr.networking.platform.io/${created} replaced`, 'replace');

  const explained = await kubectl(['explain', 'servicecidrs.spec.cidrs']);
  assert.equal(explained.code, 0, `${version} explain: ${explained.stderr}`);
  assert.match(explained.stdout, /FIELD:\s+cidrs <\[\]string>/);
  // The v2 renderer reads the protobuf document's schemas (definitions, refs, extensions).
  const v2 = await kubectl(['explain', 'servicecidrs.spec', '--output=plaintext-openapiv2']);
  assert.equal(v2.code, 0, `${version} explain v2: ${v2.stderr}`);
  assert.match(v2.stdout, /RESOURCE: spec <Object>/);
  assert.match(v2.stdout, /cidrs\t<\[\]string>/);

  const edited = await kubectl(['edit', 'scidr', ssa], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
  ok(edited, `servicecidr.networking.platform.io/${ssa} edited`, 'edit');
  const after = JSON.parse((await kubectl(['get', 'scidr', ssa, '-o', 'json'])).stdout);
  assert.deepEqual(after.metadata.labels, { by: 'ssa', edited: 'yes' });
  const final = JSON.parse((await kubectl(['get', 'scidr', created, '-o', 'json'])).stdout);
  assert.deepEqual(final.metadata.labels, { replaced: 'yes' });
}

describe('kubectl 1.27 to 1.33', { skip: missing }, () => {
  let server: TestServer;
  let scratch: string;
  let editor: string;
  const kubectl: Record<string, Kubectl> = {};

  before(async () => {
    server = await startServer();
    // Each kubectlFor has its own KUBECACHEDIR, so no version reads another's discovery cache.
    for (const v of VERSIONS) kubectl[v] = kubectlFor(binaries[v]!, server.kubeconfigPath);
    scratch = mkdtempSync(join(tmpdir(), 'platform-editor-'));
    editor = join(scratch, 'editor.sh');
    // kubectl edit runs $EDITOR on a YAML file: add a label under metadata.labels.
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/^  labels:$/  labels:\\n    edited: "yes"/\' "$1"\n');
    chmodSync(editor, 0o755);
  });
  after(async () => {
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('create, apply ×3, diff, apply --server-side, replace, explain and edit on every version', async () => {
    await Promise.all(VERSIONS.map((v, i) => scenario(v, kubectl[v]!, editor, 100 + i)));
  });

  test('auth whoami: 1.27 finds no SelfSubjectReview version it knows, as against kube 1.33; 1.28+ work', async () => {
    const old = await kubectl['1.27']!(['auth', 'whoami']);
    assert.equal(old.code, 1);
    assert.equal(
      old.stderr.trim(),
      'error: the selfsubjectreviews API is not enabled in the cluster\nenable APISelfSubjectReview feature gate and authentication.k8s.io/v1alpha1 or authentication.k8s.io/v1beta1 API',
    );
    for (const v of ['1.28', '1.33']) {
      const r = await kubectl[v]!(['auth', 'whoami', '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).status.userInfo.username, 'admin');
    }
    for (const gv of ['v1beta1', 'v1alpha1']) {
      const r = await server.request('POST', `/apis/authentication.k8s.io/${gv}/selfsubjectreviews`, { body: { apiVersion: `authentication.k8s.io/${gv}`, kind: 'SelfSubjectReview' } });
      assert.equal(r.status, 404, gv);
    }
  });

  test('a manifest of the wrong group gets the no-match error (1.33)', async () => {
    const k = kubectl['1.33']!;
    const path = k.manifest('wrong.json', scidr('wrong-group', '10.99.0.0/24', {}, 'networking.k8s.io'));
    for (const verb of ['apply', 'create']) {
      const r = await k([verb, '-f', path]);
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr.trim(),
        `error: resource mapping not found for name: "wrong-group" namespace: "" from "${path}": no matches for kind "ServiceCIDR" in version "networking.k8s.io/v1"\nensure CRDs are installed first`,
      );
    }
  });

  test('/openapi/v2 as protobuf and JSON, each with its ETag and 304', async () => {
    const accept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
    const pb = await server.request('GET', '/openapi/v2', { headers: { Accept: accept } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const json = await server.request('GET', '/openapi/v2', { headers: { Accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.equal(json.json.swagger, '2.0');
    assert.ok(json.json.paths['/apis/certificates.platform.io/v1beta1/clustertrustbundles/{name}'].put);
    assert.notEqual(pb.headers.etag, json.headers.etag);
    for (const [headers, etag] of [[{ Accept: accept }, pb.headers.etag], [{ Accept: 'application/json' }, json.headers.etag]] as const) {
      const again = await server.request('GET', '/openapi/v2', { headers: { ...headers, 'If-None-Match': etag as string } });
      assert.equal(again.status, 304);
    }
    const refused = await server.request('GET', '/openapi/v2', { headers: { Accept: 'text/html' } });
    assert.equal(refused.status, 406);
    assert.equal(refused.json.kind, 'Status');
  });
});
