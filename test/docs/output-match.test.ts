// The loose match of shown and printed output (test/docs/output-match.ts), and how blocks are
// cut into commands (test/docs/doc-blocks.ts): loose only where docs/docs-tests.md says.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchesShown } from './output-match.js';
import { consoleCommands, parseBlocks, shCommands } from './doc-blocks.js';
import { rewrite, runsUntilInterrupted } from './run-page.js';

test('exact text matches; another word, another number or a missing line does not', () => {
  assert.ok(matchesShown('servicecidr.networking.platform.io/my-range created', 'servicecidr.networking.platform.io/my-range created\n'));
  assert.ok(!matchesShown('servicecidr.networking.platform.io/my-range created', 'servicecidr.networking.platform.io/my-range configured'));
  assert.ok(!matchesShown('kubernetes   10.0.0.0/24', 'kubernetes   10.0.0.0/25'));
  assert.ok(!matchesShown('a\nb', 'a'));
  assert.ok(!matchesShown('a', 'a\nb'), 'a printed line the page does not show');
});

test('blanks: runs of spaces match any run, trailing blanks and outer blank lines are ignored', () => {
  assert.ok(matchesShown('NAME   CIDRS\nx      10.0.0.0/24', '\nNAME         CIDRS   \nx            10.0.0.0/24\n\n'));
  assert.ok(!matchesShown('NAME CIDRS', 'NAMECIDRS'));
});

test('… is any text in a line, and a line of … any number of lines', () => {
  assert.ok(matchesShown('{"kind":"Event",…,"code":201}', '{"kind":"Event","verb":"create","code":201}'));
  assert.ok(matchesShown('first\n…\nlast', 'first\nlast'));
  assert.ok(matchesShown('first\n…\nlast', 'first\n1\n2\n3\nlast'));
  assert.ok(!matchesShown('first\n…\nlast', 'first\n1\nnot last'));
});

test('the variable parts: port, temp paths, ages, times, uids', () => {
  assert.ok(matchesShown('ready at https://127.0.0.1:6443 (kubeconfig: /path/to/data/admin.kubeconfig)', 'ready at https://127.0.0.1:41239 (kubeconfig: /tmp/platform-docs-x-AbC123/data/admin.kubeconfig)'));
  assert.ok(!matchesShown('ready at https://127.0.0.1:6443', 'ready at https://10.0.0.1:6443'));
  assert.ok(!matchesShown('(kubeconfig: /path/to/data/admin.kubeconfig)', '(kubeconfig: /tmp/x/data/admin.kubeconfig.bak)'));
  assert.ok(matchesShown('Files under /tmp/platform-cluster-XXXX (removed on exit)', 'Files under /tmp/platform-cluster-q8Ze1w (removed on exit)'));
  assert.ok(matchesShown('kubernetes   10.0.0.0/24   40s', 'kubernetes   10.0.0.0/24   2m3s'));
  assert.ok(!matchesShown('kubernetes   10.0.0.0/24   40s', 'kubernetes   10.0.0.1/24   2s'));
  assert.ok(matchesShown('  creationTimestamp: "2026-11-27T11:10:07Z"', '  creationTimestamp: "2031-01-02T03:04:05Z"'));
  assert.ok(matchesShown('uid: b4d815d7-5576-4489-80b2-f2216a6eb102', 'uid: 0a1b2c3d-0000-4000-8000-123456789abc'));
  assert.ok(!matchesShown('uid: b4d815d7-5576-4489-80b2-f2216a6eb102', 'uid: none'));
});

test('sh blocks are cut into commands: continuations and here-documents stay whole, comments go', () => {
  const [block] = parseBlocks('p.md', '```sh\n# a comment\nexport A=1\nkubectl get x \\\n    -o yaml\ncat <<EOF\nline\nEOF\n\n```\n');
  assert.deepEqual(
    shCommands(block!).map((c) => [c.line, c.text]),
    [
      [3, 'export A=1'],
      [4, 'kubectl get x \\\n    -o yaml'],
      [6, 'cat <<EOF\nline\nEOF'],
    ],
  );
});

test('console blocks: each "$ " command with what it prints; markers are read from the line before', () => {
  const [block] = parseBlocks('p.md', '<!-- not-run: a reason -->\n\n```console\n$ a\nout 1\nout 2\n$ b \\\n  c\n$ d\n```\n');
  assert.deepEqual(block!.marker, { kind: 'not-run', reason: 'a reason' });
  assert.deepEqual(
    consoleCommands(block!).map((c) => [c.line, c.text, c.shown]),
    [
      [4, 'a', 'out 1\nout 2'],
      [7, 'b \\\n  c', undefined],
      [9, 'd', undefined],
    ],
  );
  assert.equal(parseBlocks('p.md', '<!-- not-run: -->\n```sh\nx\n```\n')[0]!.badMarker, '<!-- not-run: --> (not-run needs a reason)');
});

test('the harness maps the address, the cluster dir, and commands that run until interrupted', () => {
  assert.equal(rewrite('curl -k https://127.0.0.1:6443/readyz'), 'curl -k https://127.0.0.1:${__DOCS_PORT}/readyz');
  assert.match(rewrite('KUBECONFIG=/tmp/platform-cluster-XXXX/replica-1.kubeconfig kubectl get servicecidrs --watch'), /^__docs_for_a_while KUBECONFIG=\$\{__DOCS_CLUSTER_DIR:\?[^}]*\}\/replica-1\.kubeconfig kubectl get servicecidrs --watch$/);
  assert.ok(runsUntilInterrupted('kubectl get events -w'));
  assert.ok(!runsUntilInterrupted('kubectl wait --for=delete servicecidr/x'));
  assert.throws(() => rewrite('kubectl get x -w | head'), /one simple command/);
});
