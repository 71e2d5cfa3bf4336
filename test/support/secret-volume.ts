// A directory laid out as a Kubernetes secret (or ConfigMap) volume, for tests of files that are
// re-read when they change: each file is a symlink through `..data`, and a new version is
// published by swapping `..data` with an atomic rename, as the kubelet does.

import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class SecretVolume {
  private n = 0;
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }
  path(name: string): string {
    return join(this.dir, name);
  }
  /** Writes a new version and swaps `..data` to it atomically, as the kubelet does. */
  publish(files: Record<string, string>): void {
    const version = `..v${++this.n}`;
    mkdirSync(join(this.dir, version));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(this.dir, version, name), content);
    symlinkSync(version, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const name of Object.keys(files)) {
      try {
        symlinkSync(join('..data', name), join(this.dir, name));
      } catch {
        // already linked through ..data
      }
    }
  }
}
