// What this build is: our version, the git commit, tree state and build date stamped into
// dist/build-info.json by `npm run build` (scripts/stamp-build-info.ts; a packed tarball carries
// it, having no .git), and the /version document kube-apiserver 1.33 serves, made from them
// (docs/api-compatibility.md, decision 2). A run from source has no stamp and says so. A leaf:
// it imports nothing from src/, so the commands may read it too.

import { readFileSync } from 'node:fs';

export interface BuildInfo {
  /** Our version (package.json's). */
  version: string;
  /** `git rev-parse HEAD` at build time; '' when unknown. */
  gitCommit: string;
  /** 'clean' or 'dirty' (uncommitted changes when built); '' when unknown. */
  gitTreeState: '' | 'clean' | 'dirty';
  /** UTC, seconds precision, as kube stamps it; '' when not stamped. */
  buildDate: string;
}

/** The stamp's file name, written into dist/ beside dist/src/. */
export const BUILD_INFO_FILE = 'build-info.json';

function readJson(url: URL): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(url, 'utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The build's stamp (dist/build-info.json, one level above this module in dist/src/), or, from
 * source (src/version.ts) or an unstamped tsc output, our package.json with nothing stamped.
 */
function readBuildInfo(): BuildInfo & { stamped: boolean } {
  const stamp = readJson(new URL(`../${BUILD_INFO_FILE}`, import.meta.url));
  if (stamp && str(stamp.version)) {
    const tree = str(stamp.gitTreeState);
    return { version: str(stamp.version), gitCommit: str(stamp.gitCommit), gitTreeState: tree === 'clean' || tree === 'dirty' ? tree : '', buildDate: str(stamp.buildDate), stamped: true };
  }
  const pkg = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)].map(readJson).find((p) => p?.name === 'platform-apiserver');
  return { version: str(pkg?.version) || '0.0.0', gitCommit: '', gitTreeState: '', buildDate: '', stamped: false };
}

export const BUILD_INFO = readBuildInfo();
export const SERVER_VERSION = BUILD_INFO.version;

/** Go's GOARCH names for Node's process.arch values where they differ. */
const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le' };

/**
 * The /version document: kube 1.33's version.Info, field for field and in its order. The API
 * level is 1.33 (emulation 1.33, min compatibility 1.32, as kube-apiserver 1.33 reports); the
 * git fields and build date are ours, with kube's unstamped defaults ('' and the epoch) when
 * running from source; goVersion and compiler name the runtime and compiler this one has.
 */
export const KUBERNETES_VERSION = {
  major: '1',
  minor: '33',
  emulationMajor: '1',
  emulationMinor: '33',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '32',
  gitVersion: `v1.33.0+platform-apiserver.${SERVER_VERSION}`,
  gitCommit: BUILD_INFO.gitCommit,
  gitTreeState: BUILD_INFO.gitTreeState,
  buildDate: BUILD_INFO.buildDate || '1970-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsc',
  platform: `${process.platform}/${GOARCH[process.arch] ?? process.arch}`,
};

/** What `platform-apiserver version` and `--version` print. */
export function versionText(info: BuildInfo & { stamped: boolean } = BUILD_INFO): string {
  const build = info.stamped
    ? [`git commit: ${info.gitCommit || 'unknown (built outside a git checkout)'}${info.gitTreeState === 'dirty' ? ' (with uncommitted changes)' : ''}`, `built:      ${info.buildDate}`]
    : ['git commit: none stamped (running from source; `npm run build` stamps dist/)', 'built:      not a build'];
  return [
    `platform-apiserver ${info.version}`,
    ...build,
    `API level:  Kubernetes 1.33 (${`v1.33.0+platform-apiserver.${info.version}`})`,
    `runtime:    node ${process.versions.node} ${KUBERNETES_VERSION.platform}`,
  ].join('\n');
}
