// The server an attack is aimed at: the real server process (as `npm start` runs it, through the
// e2e harness) on 127.0.0.1, with its defaults where they defend it (load shedding on event-loop
// delay is on, as by default, though the e2e harness turns it off), and an ordinary user for the
// attacker: allowed everything on ServiceCIDRs, but not system:masters (whom the in-flight
// limits, the turn budget and load shedding exempt). Another client (probe.ts) is the admin.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../e2e/harness.js';

export const ATTACKER_TOKEN = 'attacker-token';

const POLICY = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: attacker}
rules: [{verbs: ["*"], apiGroups: [networking.platform.io, certificates.platform.io], resources: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: attacker}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: attacker}
subjects: [{kind: User, name: attacker}]
`;

export interface Target extends TestServer {
  attackerToken: string;
}

export async function startTarget(args: string[] = [], env?: Record<string, string>): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-attack-'));
  writeFileSync(join(dir, 'tokens.csv'), `${ATTACKER_TOKEN},attacker,uid-attacker\n`);
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  try {
    const server = await startServer({
      args: ['--token-auth-file', join(dir, 'tokens.csv'), '--authorization-policy-file', join(dir, 'policy.yaml'), '--max-event-loop-delay', '100ms', ...args],
      ...(env ? { env } : {}),
    });
    const stop = server.stop.bind(server);
    return Object.assign(server, {
      attackerToken: ATTACKER_TOKEN,
      async stop(o?: { keepData?: boolean }) {
        await stop(o);
        rmSync(dir, { recursive: true, force: true });
      },
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
