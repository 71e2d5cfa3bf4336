// Data dirs for several API server replicas, seeded as docs/etcd.md (several replicas) says:
// each replica has its own data dir holding the same operator-handed files (CA, serving
// certificate, admin token), so one kubeconfig reaches every replica.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminToken } from '../../src/config/admin-token.js';
import { ensureServingCertificates } from '../../src/config/certificates.js';

const SEED_FILES = ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.token'];

/** Data dirs for `n` replicas, each holding the same certificates and admin token. */
export async function seededDataDirs(n: number): Promise<{ dirs: string[]; cleanup(): void }> {
  const root = mkdtempSync(join(tmpdir(), 'replicas-'));
  const seed = join(root, 'seed');
  mkdirSync(seed);
  await ensureServingCertificates({ dir: seed, hosts: ['127.0.0.1'] });
  ensureAdminToken(seed);
  const dirs = Array.from({ length: n }, (_, i) => {
    const dir = join(root, `replica-${i}`);
    mkdirSync(dir, { mode: 0o700 });
    for (const f of SEED_FILES) copyFileSync(join(seed, f), join(dir, f));
    return dir;
  });
  return { dirs, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
