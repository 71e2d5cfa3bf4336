// Builds main.go (standard library only) with the machine's Go into a temporary folder, with its
// own GOCACHE and no toolchain download, and asks it about many certificates and bundles in one
// run: one request line in, one answer line out.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export interface GoOracle {
  version: string;
  /** [major, minor] of the Go release, e.g. [1, 19]. */
  release: [number, number];
  certificates(ders: Uint8Array[]): Promise<string[]>;
  bundles(texts: string[]): Promise<string[][]>;
  close(): void;
}

export function buildGoOracle(go: string): GoOracle {
  const dir = mkdtempSync(join(tmpdir(), 'x509-differential-'));
  const binary = join(dir, 'x509diff');
  const env = { ...process.env, GOCACHE: join(dir, 'cache'), GOPATH: join(dir, 'gopath'), GOTOOLCHAIN: 'local', GOFLAGS: '', GO111MODULE: 'off', CGO_ENABLED: '0' };
  const build = spawnSync(go, ['build', '-o', binary, 'main.go'], { cwd: here, env, encoding: 'utf8', timeout: 170_000 });
  if (build.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`go build failed (${build.status ?? build.signal}): ${build.stderr}`);
  }
  const version = spawnSync(binary, [], { input: 'V\n', encoding: 'utf8', timeout: 30_000 }).stdout.trim();
  const m = /^go(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`unexpected Go version ${JSON.stringify(version)}`);

  const ask = (lines: string[]): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'inherit'] });
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        const out = Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
        if (code !== 0 || out.length !== lines.length) reject(new Error(`Go oracle exited ${code} with ${out.length}/${lines.length} answers`));
        else resolve(out);
      });
      child.stdin.end(lines.join('\n') + '\n');
    });

  return {
    version,
    release: [Number(m[1]), Number(m[2])],
    certificates: (ders) => ask(ders.map((d) => `C ${Buffer.from(d).toString('base64')}`)),
    bundles: async (texts) => (await ask(texts.map((t) => `B ${Buffer.from(t, 'utf8').toString('base64')}`))).map((l) => JSON.parse(l) as string[]),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
