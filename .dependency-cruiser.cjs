/**
 * Layer rules (docs/architecture.md): each layer imports only the layers below it, plus the
 * files matching the patterns in `files` (for a layer that needs a few modules, not the whole layer).
 */
const layer = (from, allowed, files = []) => ({
  name: `${from}-imports-downward-only`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: '^src/', pathNot: [`^src/${from}/`, ...allowed.map((l) => `^src/${l}/`), ...files] },
});
module.exports = {
  forbidden: [
    layer('apimachinery', []),
    // Storage shares the one retry backoff (pure arithmetic) with the controllers.
    layer('storage', [], ['^src/apimachinery/backoff\\.ts$']),
    // Inside storage: the contract and what every backend shares sit at its root; each backend
    // (sqlite/, which also serves the memory backend, and etcd/) and the watch cache (cache/) import only that, never each other.
    ...['sqlite', 'etcd', 'cache'].map((part) => ({
      name: `storage-${part}-imports-no-other-part`,
      severity: 'error',
      from: { path: `^src/storage/${part}/` },
      to: { path: '^src/storage/(sqlite|etcd|cache)/', pathNot: `^src/storage/${part}/` },
    })),
    {
      name: 'storage-contract-imports-no-part',
      severity: 'error',
      from: { path: '^src/storage/[^/]+$' },
      to: { path: '^src/storage/(sqlite|etcd|cache)/' },
    },
    layer('registry', ['apimachinery', 'storage']),
    // CEL (the expression language admission policies and validation use): pure, like apimachinery.
    layer('cel', ['apimachinery']),
    layer('resources', ['apimachinery', 'registry', 'cel']),
    layer('auth', ['apimachinery']),
    layer('controllers', ['apimachinery', 'registry']),
    layer('http', ['apimachinery', 'registry', 'auth']),
    // Inside http: transport/ holds only byte-level parts (connections, bodies, the exchange); the
    // server that assembles filters, endpoints and routes over it is src/http/server.ts.
    {
      name: 'http-transport-imports-no-other-http-part',
      severity: 'error',
      from: { path: '^src/http/transport/' },
      to: { path: '^src/http/', pathNot: '^src/http/transport/' },
    },
    // Admission policies and webhooks: read the served kinds through informers (controllers/) over
    // the registry, evaluate CEL, ask the authorizer; the registry calls them through apimachinery's contract.
    layer('admission', ['apimachinery', 'registry', 'auth', 'cel', 'resources', 'controllers']),
    // Composition-level: the prom-client metrics and the server's lifecycle (health, shutdown),
    // wired by main; no layer below imports them.
    layer('metrics', ['apimachinery', 'storage', 'auth']),
    layer('lifecycle', ['apimachinery', 'storage', 'http', 'metrics']),
    // Client-side commands: talk to a server over HTTPS; only pure helpers from below. The
    // `snapshot` and `defrag` commands work on the SQLite file itself: storage's snapshot and
    // defrag modules, nothing else. `version` reads src/version.ts (a leaf: the build's stamp and
    // the /version document).
    { ...layer('cli', ['apimachinery', 'resources'], ['^src/storage/sqlite/snapshot-[a-z-]+\\.ts$', '^src/storage/sqlite/store-defrag\\.ts$', '^src/version\\.ts$']), from: { path: '^src/cli/', pathNot: '^src/cli/migrate/' } },
    // `migrate` moves the store itself between backends: it reads and writes storage directly.
    layer('cli/migrate', ['apimachinery', 'storage']),
    // The test server for test authors (`platform-apiserver/testing`): composition-level, it builds
    // the server as main does (config/build-server.ts), and nothing else in src/ imports it.
    layer('testing', ['config']),
    { name: 'nothing-imports-testing', severity: 'error', from: { path: '^src/', pathNot: '^src/testing/' }, to: { path: '^src/testing/' } },
    // src/version.ts (the build's stamp, the /version document) is a leaf the commands read too.
    { name: 'version-is-a-leaf', severity: 'error', from: { path: '^src/version\\.ts$' }, to: { path: '^src/' } },
    // Test-only code (conformance suites, fault injection) lives under test/ and never ships.
    { name: 'src-imports-no-test-code', severity: 'error', from: { path: '^src/' }, to: { path: '^test/' } },
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
