import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../apimachinery/request-context.js';
import { loadPolicySource, parsePolicy, PolicyFileError } from './policy-file.js';

const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cidr-reader}
rules:
- verbs: [get, list]
  apiGroups: [networking.platform.io]
  resources: [servicecidrs]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-reads}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cidr-reader}
subjects:
- {kind: User, name: alice}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: sa, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cidr-reader}
subjects:
- {kind: ServiceAccount, name: builder}
`;

const waitFor = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('authorization policy file', () => {
  test('parses every kind of a multi-document file', () => {
    const p = parsePolicy(POLICY);
    assert.deepEqual(p.clusterRoles.get('cidr-reader')?.rules[0]?.verbs, ['get', 'list']);
    assert.equal(p.clusterRoleBindings[0]?.subjects?.[0]?.name, 'alice');
    assert.deepEqual(p.roleBindings[0]?.metadata, { name: 'sa', namespace: 'team-a' });
  });

  test('rejects unknown kinds, wrong apiVersions, bad roleRefs and malformed YAML with a reason', () => {
    const bad = (text: string, message: RegExp) => assert.throws(() => parsePolicy(text), (e: unknown) => e instanceof PolicyFileError && message.test(e.message));
    bad('apiVersion: rbac.authorization.k8s.io/v1\nkind: Pod\nmetadata: {name: x}\n', /kind must be ClusterRole, ClusterRoleBinding, Role or RoleBinding/);
    bad('apiVersion: v1\nkind: ClusterRole\nmetadata: {name: x}\n', /apiVersion must be rbac.authorization.k8s.io\/v1/);
    bad('apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: x}\nroleRef: {kind: Role, name: r}\n', /roleRef.kind must be ClusterRole/);
    bad('apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: x}\nrules: []\n', /metadata.namespace is required/);
    bad('a: [unclosed\n', /document 0/);
  });

  test('reloads on change and keeps the last good policy when the file breaks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'policy-'));
    const file = join(dir, 'policy.yaml');
    try {
      writeFileSync(file, POLICY);
      const source = loadPolicySource(file, silentLogger, (onChange) => {
        const timer = setInterval(onChange, 20);
        return { close: () => clearInterval(timer) };
      });
      try {
        assert.ok(source.current().clusterRoles.has('cidr-reader'));
        assert.ok(source.current().clusterRoles.has('system:discovery'), 'bootstrap roles are always present');
        assert.equal(source.health(), '');

        writeFileSync(file, POLICY.replace(/cidr-reader/g, 'cidr-viewer'));
        await waitFor(() => source.current().clusterRoles.has('cidr-viewer'));

        writeFileSync(file, 'kind: [broken\n');
        await waitFor(() => source.health() !== '');
        assert.match(source.health(), /is invalid, keeping the last good policy/);
        assert.ok(source.current().clusterRoles.has('cidr-viewer'));
      } finally {
        source.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
