// The real kubectl changing objects every way it can: patch (json, merge, strategic, on /status),
// client-side apply with finalizers, server-side apply by two managers, --force-conflicts, diff,
// edit with a scripted EDITOR, and the move from client-side to server-side apply.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';

const binary = requireTool('kubectl', 'the kubectl patch and apply tests drive the real client');

const scidr = (name: string, cidrs: string[], metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...metadata },
  spec: { cidrs },
});
const READY = { type: 'Ready', status: 'True', reason: 'Checked', message: 'ok', lastTransitionTime: '2026-11-22T00:00:00Z' };

describe('kubectl patch and apply', { skip: !binary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const live = async (name: string) => JSON.parse((await kubectl(['get', 'scidr', name, '-o', 'json', '--show-managed-fields'])).stdout);
  const managers = (obj: any) => (obj.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`).sort();

  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
    kubectl = kubectlFor(binary!, server.kubeconfigPath);
  });
  after(async () => {
    await server?.stop();
  });

  test('patch --type json, merge and strategic; --subresource=status; a failed test op', async () => {
    assert.equal((await kubectl(['create', '-f', kubectl.manifest('p.json', scidr('patched', ['10.40.0.0/24'], { finalizers: ['example.com/a'] }))])).code, 0);

    const json = await kubectl(['patch', 'scidr', 'patched', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/labels","value":{"j":"1"}}]']);
    assert.equal(json.stdout.trim(), 'servicecidr.networking.platform.io/patched patched', json.stderr);
    const merge = await kubectl(['patch', 'scidr', 'patched', '--type', 'merge', '-p', '{"metadata":{"labels":{"m":"1"}}}']);
    assert.equal(merge.stdout.trim(), 'servicecidr.networking.platform.io/patched patched', merge.stderr);
    // Strategic merge adds to the finalizer set instead of replacing it.
    const strategic = await kubectl(['patch', 'scidr', 'patched', '-p', '{"metadata":{"finalizers":["example.com/b"]}}']);
    assert.equal(strategic.stdout.trim(), 'servicecidr.networking.platform.io/patched patched', strategic.stderr);
    const status = await kubectl(['patch', 'scidr', 'patched', '--subresource=status', '--type', 'merge', '-p', JSON.stringify({ status: { conditions: [READY] } })]);
    assert.equal(status.stdout.trim(), 'servicecidr.networking.platform.io/patched patched', status.stderr);

    const obj = await live('patched');
    assert.deepEqual(obj.metadata.labels, { j: '1', m: '1' });
    assert.deepEqual(obj.metadata.finalizers, ['example.com/a', 'example.com/b']);
    assert.equal(obj.status.conditions[0].type, 'Ready');
    assert.deepEqual(managers(obj), ['kubectl-create/Update', 'kubectl-patch/Update', 'kubectl-patch/Update/status']);

    const failed = await kubectl(['patch', 'scidr', 'patched', '--type', 'json', '-p', '[{"op":"test","path":"/metadata/labels/j","value":"2"}]']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /The request is invalid: testing value \/metadata\/labels\/j failed/);
    const immutable = await kubectl(['patch', 'scidr', 'patched', '--type', 'merge', '-p', '{"spec":{"cidrs":["10.41.0.0/24"]}}']);
    assert.equal(immutable.code, 1);
    assert.match(immutable.stderr, /field is immutable/);

    await kubectl(['patch', 'scidr', 'patched', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  });

  test('client-side apply twice: removed fields go, fields others set stay, finalizers kept', async () => {
    const file = (labels: Record<string, string>, finalizers: string[]) => kubectl.manifest('csa.json', scidr('csa', ['10.42.0.0/24'], { labels, finalizers }));
    assert.equal((await kubectl(['apply', '-f', file({ a: '1', b: '1' }, ['example.com/x', 'example.com/y'])])).code, 0);
    await kubectl(['label', 'scidr', 'csa', 'other=kept']);
    const second = await kubectl(['apply', '-f', file({ a: '2' }, ['example.com/y'])]);
    assert.equal(second.stdout.trim(), 'servicecidr.networking.platform.io/csa configured', second.stderr);
    const obj = await live('csa');
    assert.deepEqual(obj.metadata.labels, { a: '2', other: 'kept' });
    assert.deepEqual(obj.metadata.finalizers, ['example.com/y']);
    assert.deepEqual(managers(obj), ['kubectl-client-side-apply/Update', 'kubectl-label/Update']);
    await kubectl(['patch', 'scidr', 'csa', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  });

  test('server-side apply by two managers: conflict, sharing, --force-conflicts, field removal', async () => {
    const file = (name: string, labels: Record<string, string>) => kubectl.manifest(name, scidr('ssa', ['10.43.0.0/24'], { labels }));
    const first = await kubectl(['apply', '--server-side', '--field-manager=team-a', '-f', file('a.json', { owner: 'a', a: '1' })]);
    assert.equal(first.stdout.trim(), 'servicecidr.networking.platform.io/ssa serverside-applied', first.stderr);

    const conflict = await kubectl(['apply', '--server-side', '--field-manager=team-b', '-f', file('b.json', { owner: 'b' })]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "team-a": \.metadata\.labels\.owner\nPlease review the fields above--they currently have other managers/);

    const forced = await kubectl(['apply', '--server-side', '--field-manager=team-b', '--force-conflicts', '-f', file('b.json', { owner: 'b' })]);
    assert.equal(forced.code, 0, forced.stderr);
    let obj = await live('ssa');
    assert.deepEqual(obj.metadata.labels, { owner: 'b', a: '1' });

    // team-a drops `a` and stops claiming `owner`: `a` goes, `owner` stays with team-b.
    const shrink = await kubectl(['apply', '--server-side', '--field-manager=team-a', '-f', file('a2.json', {})]);
    assert.equal(shrink.code, 0, shrink.stderr);
    obj = await live('ssa');
    assert.deepEqual(obj.metadata.labels, { owner: 'b' });
    assert.deepEqual(managers(obj), ['team-a/Apply', 'team-b/Apply']);
  });

  test('apply --server-side --subresource=status: status is applied by its own manager, spec untouched', async () => {
    const manifest = { ...scidr('with-status', ['10.45.0.0/24']), status: { conditions: [READY] } };
    const file = kubectl.manifest('status.json', manifest);
    assert.equal((await kubectl(['apply', '--server-side', '-f', file])).code, 0);
    assert.equal((await live('with-status')).status, undefined, 'the main resource ignores status');
    const r = await kubectl(['apply', '--server-side', '--subresource=status', '--field-manager=ctl', '-f', kubectl.manifest('status2.json', { ...manifest, spec: { cidrs: ['10.46.0.0/24'] } })]);
    assert.equal(r.stdout.trim(), 'servicecidr.networking.platform.io/with-status serverside-applied', r.stderr);
    const obj = await live('with-status');
    assert.equal(obj.status.conditions[0].type, 'Ready');
    assert.deepEqual(obj.spec.cidrs, ['10.45.0.0/24']);
    assert.deepEqual(managers(obj), ['ctl/Apply/status', 'kubectl/Apply']);
  });

  test('diff shows what apply would change and exits 1; 0 when nothing would', async () => {
    const file = kubectl.manifest('diff.json', scidr('ssa', ['10.43.0.0/24'], { labels: { owner: 'b', extra: 'new' } }));
    const changed = await kubectl(['diff', '--server-side', '--field-manager=team-b', '-f', file]);
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, /^\+    extra: new$/m);
    const same = await kubectl(['diff', '--server-side', '--field-manager=team-b', '-f', kubectl.manifest('same.json', scidr('ssa', ['10.43.0.0/24'], { labels: { owner: 'b' } }))]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.equal(same.stdout, '');
    const clientSide = await kubectl(['diff', '-f', file]);
    assert.equal(clientSide.code, 1, clientSide.stderr);
    assert.match(clientSide.stdout, /^\+    extra: new$/m);
    assert.equal((await live('ssa')).metadata.labels.extra, undefined, 'diff changed nothing');
  });

  test('edit with a non-interactive EDITOR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-editor-'));
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/^    owner: b$/    owner: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    const edited = await kubectl(['edit', 'scidr', 'ssa'], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
    assert.equal(edited.stdout.trim(), 'servicecidr.networking.platform.io/ssa edited', edited.stderr);
    const obj = await live('ssa');
    assert.equal(obj.metadata.labels.owner, 'edited');
    assert.ok(managers(obj).includes('kubectl-edit/Update'));

    const noop = join(dir, 'noop.sh');
    writeFileSync(noop, '#!/bin/sh\ntrue\n');
    chmodSync(noop, 0o755);
    const cancelled = await kubectl(['edit', 'scidr', 'ssa'], { env: { EDITOR: noop, KUBE_EDITOR: noop } });
    assert.match(cancelled.stdout + cancelled.stderr, /Edit cancelled, no changes made/);
  });

  test('client-side apply, then server-side apply: kubectl migrates ownership without conflicts', async () => {
    const file = (x: string) => kubectl.manifest('mig.json', scidr('migrated', ['10.44.0.0/24'], { labels: { x } }));
    assert.equal((await kubectl(['apply', '-f', file('1')])).code, 0);
    assert.deepEqual(managers(await live('migrated')), ['kubectl-client-side-apply/Update']);

    const ssa = await kubectl(['apply', '--server-side', '-f', file('2')]);
    assert.equal(ssa.stdout.trim(), 'servicecidr.networking.platform.io/migrated serverside-applied', ssa.stderr);
    const obj = await live('migrated');
    assert.deepEqual(obj.metadata.labels, { x: '2' });
    assert.ok(!managers(obj).includes('kubectl-client-side-apply/Update'), managers(obj).join());
    assert.ok(managers(obj).includes('kubectl/Apply'));
    const lastApplied = JSON.parse(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.deepEqual(lastApplied.metadata.labels, { x: '2' }, 'the annotation follows the server-side apply');

    // And back to client-side apply, which still works from the annotation.
    const csa = await kubectl(['apply', '-f', file('3')]);
    assert.equal(csa.code, 0, csa.stderr);
    assert.deepEqual((await live('migrated')).metadata.labels, { x: '3' });
  });
});
