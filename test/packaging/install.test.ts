// The package as users get it: `npm pack` (whose prepare builds and stamps dist/), then the
// tarball installed as a Node user installs it, away from the repo: into a temp project with
// `npm install --prefix` (beside the example's own dependency, client-node), and with
// `npm install -g` into a temp prefix. The tarball holds the built code and nothing from the dev
// tree; the installed bin prints the stamped version and serves real HTTPS (/version, kubectl
// get) from the install; the testing-with example runs against the installed
// platform-apiserver/testing, and its published types check. Installs take npm's cache first
// (--prefer-offline) and the registry only for what it lacks; every step is bounded in time.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { requireTool } from '../e2e/require-tool.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const EXAMPLE_DIR = join(repo, 'examples', 'testing-with');
const PACK_TIMEOUT_MS = 10 * 60_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** npm reads its own configuration (npmrc, its cache); what a running `npm test` passes down in npm_* variables stays out. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // NODE_TEST_CONTEXT would make the example's `node --test` report to this test runner, not print.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_') && k !== 'NODE_TEST_CONTEXT'));
  // Nothing from the repo's node_modules/.bin: node and the system's tools only.
  return { ...env, PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'), ...extra };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd, timeout: opts.timeoutMs, env: opts.env ?? cleanEnv(), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

function succeeded(r: Run, what: string): Run {
  assert.equal(r.code, 0, `${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

/** Starts the installed bin as a server; resolves with its URL and kubeconfig path once ready. */
function startInstalled(bin: string, dataDir: string, cwd: string): Promise<{ child: ChildProcess; url: string; kubeconfigPath: string }> {
  const child = spawn(bin, ['--data-dir', dataDir, '--secure-port', '0', '--log-level', 'warn'], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the installed server was not ready within 60 s:\n${err}`));
    }, 60_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /ready at (https:\/\/\S+) \(kubeconfig: (.+)\)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, kubeconfigPath: m[2]! });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the installed server exited with ${code} before it was ready:\n${err}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function getJson(url: string, caCertPem: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: caCertPem, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString())) : reject(new Error(`GET ${url}: ${res.statusCode}`))));
      })
      .on('error', reject)
      .on('timeout', function (this: { destroy(e: Error): void }) {
        this.destroy(new Error(`GET ${url}: no answer within 30 s`));
      });
  });
}

describe('the packed package', () => {
  let work: string;
  let tarball: string;
  let project: string;
  /** What the stamp must say: the commit and tree state when packed. */
  let head: string;
  let treeState: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'platform-package-'));
    head = git('rev-parse', 'HEAD').trim();
    treeState = git('status', '--porcelain').trim() ? 'dirty' : 'clean';
    // The real `npm pack`: its prepare runs `npm run build` (clean build, then the stamp).
    const packed = succeeded(await run('npm', ['pack', '--pack-destination', work], { cwd: repo, timeoutMs: PACK_TIMEOUT_MS }), 'npm pack');
    tarball = join(work, packed.stdout.trim().split('\n').pop()!);
    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'testing-with-example', private: true, type: 'module', allowScripts: { 'better-sqlite3': true } }, null, 2));
    for (const f of readdirSync(EXAMPLE_DIR)) copyFileSync(join(EXAMPLE_DIR, f), join(project, f));
    const clientNode = `@kubernetes/client-node@${pkg.dependencies['@kubernetes/client-node']}`;
    succeeded(await run('npm', ['install', '--prefix', project, '--no-audit', '--no-fund', '--prefer-offline', tarball, clientNode], { cwd: work, timeoutMs: INSTALL_TIMEOUT_MS }), 'npm install --prefix');
  });
  after(() => work && rmSync(work, { recursive: true, force: true }));

  test('the tarball holds the built code, the types, the stamp, README and LICENSE, and nothing from the dev tree', async () => {
    const files = succeeded(await run('tar', ['-tzf', tarball], { cwd: work, timeoutMs: 60_000 }), 'tar').stdout.trim().split('\n');
    const outside = files.filter((f) => !/^package\/dist\/src\/.+\.js$/.test(f) && !['package/package.json', 'package/README.md', 'package/LICENSE', 'package/dist/build-info.json', 'package/dist/src/testing/index.d.ts'].includes(f));
    assert.deepEqual(outside, [], 'only dist/src JavaScript and the listed files');
    for (const f of ['package/dist/src/main.js', 'package/dist/src/testing/index.js', 'package/dist/src/testing/index.d.ts', 'package/dist/build-info.json', 'package/LICENSE', 'package/README.md']) assert.ok(files.includes(f), f);
    assert.deepEqual(files.filter((f) => f.endsWith('.test.js')), [], 'no test code');
    assert.match(readFileSync(join(repo, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/);
    const installed = join(project, 'node_modules', 'platform-apiserver');
    assert.equal(readFileSync(join(installed, 'dist', 'src', 'main.js'), 'utf8').split('\n')[0], '#!/usr/bin/env node');
    const stamp = JSON.parse(readFileSync(join(installed, 'dist', 'build-info.json'), 'utf8'));
    assert.deepEqual({ ...stamp, buildDate: undefined }, { version: pkg.version, gitCommit: head, gitTreeState: treeState, buildDate: undefined });
    assert.match(stamp.buildDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('`npm install -g` into a prefix puts platform-apiserver on PATH; version and --version print the stamp', async () => {
    const prefix = join(work, 'global');
    // The server's native module is built by the project install (the next test serves from it);
    // here the commands that load no store run, so the install skips install scripts.
    succeeded(await run('npm', ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: work, timeoutMs: INSTALL_TIMEOUT_MS }), 'npm install -g');
    const env = cleanEnv({ PATH: `${join(prefix, 'bin')}:${cleanEnv().PATH}` });
    assert.equal(succeeded(await run('sh', ['-c', 'command -v platform-apiserver'], { cwd: work, timeoutMs: 30_000, env }), 'command -v').stdout.trim(), join(prefix, 'bin', 'platform-apiserver'));
    const version = succeeded(await run('platform-apiserver', ['version'], { cwd: work, timeoutMs: 60_000, env }), 'platform-apiserver version');
    assert.equal(version.stdout.split('\n')[0], `platform-apiserver ${pkg.version}`);
    assert.match(version.stdout, new RegExp(`^git commit: ${head}${treeState === 'dirty' ? ' \\(with uncommitted changes\\)' : ''}$`, 'm'));
    assert.match(version.stdout, /^built: {6}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const flag = succeeded(await run('platform-apiserver', ['--version'], { cwd: work, timeoutMs: 60_000, env }), 'platform-apiserver --version');
    assert.equal(flag.stdout, version.stdout);
  });

  test('the installed bin (npx finds it) serves from the install: HTTPS /version with the stamp, kubectl get', async () => {
    const npx = succeeded(await run('npx', ['--no', 'platform-apiserver', 'version', '-o', 'json'], { cwd: project, timeoutMs: 120_000 }), 'npx platform-apiserver');
    assert.equal(JSON.parse(npx.stdout).gitCommit, head);
    const bin = join(project, 'node_modules', '.bin', 'platform-apiserver');
    assert.equal(realpathSync(bin), join(realpathSync(project), 'node_modules', 'platform-apiserver', 'dist', 'src', 'main.js'), 'the bin is the installed build');
    const server = await startInstalled(bin, join(work, 'data'), work);
    try {
      const kubeconfig = parseYaml(readFileSync(server.kubeconfigPath, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
      const ca = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
      const version = await getJson(`${server.url}/version`, ca);
      assert.equal(version.gitCommit, head);
      assert.equal(version.gitTreeState, treeState);
      assert.equal(version.gitVersion, `v1.33.0+platform-apiserver.${pkg.version}`);
      assert.notEqual(version.buildDate, '1970-01-01T00:00:00Z');
      const kubectl = requireTool('kubectl', 'kubectl get against the installed server');
      if (kubectl) {
        const get = succeeded(await run(kubectl, ['--kubeconfig', server.kubeconfigPath, 'get', 'servicecidrs', '-o', 'name'], { cwd: work, timeoutMs: 60_000, env: cleanEnv({ KUBECACHEDIR: join(work, 'kube-cache') }) }), 'kubectl get');
        assert.equal(get.stdout, 'servicecidr.networking.platform.io/kubernetes\n');
      }
    } finally {
      await stop(server.child);
    }
  });

  test('the testing-with example runs against the installed platform-apiserver/testing', async () => {
    const script = "import { fileURLToPath } from 'node:url'; console.log(fileURLToPath(import.meta.resolve('platform-apiserver/testing')));";
    const resolved = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, timeoutMs: 60_000 }), 'resolve');
    assert.equal(resolved.stdout.trim(), join(realpathSync(project), 'node_modules', 'platform-apiserver', 'dist', 'src', 'testing', 'index.js'));
    const r = await run(process.execPath, ['--test', '--test-timeout=120000', 'servicecidrs.test.mjs'], { cwd: project, timeoutMs: 180_000 });
    succeeded(r, 'node --test servicecidrs.test.mjs');
    assert.match(r.stdout, /^# pass [1-9]\d*$/m);
    assert.match(r.stdout, /^# fail 0$/m);
  });

  test("the published types check a TypeScript user's code, and catch a wrong option", async () => {
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const dir = join(work, 'typed');
    mkdirSync(dir);
    const compilerOptions = { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: [], typeRoots: [], skipLibCheck: false };
    // Resolved from the project's node_modules, as a user's own tsconfig resolves it.
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed-use.ts'] }));
    writeFileSync(
      join(project, 'typed-use.ts'),
      [
        "import { startTestServer, type TestServer } from 'platform-apiserver/testing';",
        "const server: TestServer = await startTestServer({ users: [{ name: 'vera', groups: ['viewers'] }], controllers: false, flags: ['--request-timeout', '30s'] });",
        'const text: string = server.kubeconfig + server.kubeconfigFor(\'vera\') + server.url;',
        'const done: Promise<void> = server.stop();',
        'export { text, done };',
        '',
      ].join('\n'),
    );
    succeeded(await run(process.execPath, [tsc, '-p', project], { cwd: project, timeoutMs: 120_000 }), 'tsc on a correct use');
    writeFileSync(join(project, 'typed-use.ts'), "import { startTestServer } from 'platform-apiserver/testing';\nawait startTestServer({ controllers: 'yes' });\nexport {};\n");
    const wrong = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeoutMs: 120_000 });
    assert.notEqual(wrong.code, 0, 'a wrong option type is an error');
    assert.match(wrong.stdout, /typed-use\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean( \| undefined)?'/);
  });
});
