// Which etcd the cluster runs, for the one behaviour that depends on it: before 3.4.25 and
// 3.5.8, etcd answers a progress request at once with its current revision even while a new
// watcher is still replaying history (etcd issue 15220), so a progress answer in a new watcher's
// first moments may claim events not yet sent. kube-apiserver likewise decides what it asks of
// etcd's watch from the version the members report (Status RPC), not from timing.

/** True when an etcd of `version` ("3.4.23") may answer a progress request too early. */
export function earlyProgressAnswers(version: string | undefined): boolean {
  if (!version) return true; // unknown: assume the old behaviour (the workaround only delays)
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return true;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major < 3;
  if (minor < 4) return true;
  if (minor === 4) return patch < 25;
  if (minor === 5) return patch < 8;
  return false;
}

/**
 * The oldest version among the answers so far: members of one cluster may differ during a
 * rolling upgrade, and the workaround must hold while any member could answer early.
 */
export function oldestVersion(a: string | undefined, b: string): string {
  if (!a) return b;
  const key = (v: string): number[] => (/^v?(\d+)\.(\d+)\.(\d+)/.exec(v) ?? ['', '0', '0', '0']).slice(1).map(Number);
  const [x, y] = [key(a), key(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? a : b;
  return a;
}
