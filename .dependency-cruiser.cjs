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
    layer('resources', ['apimachinery', 'registry']),
    layer('auth', ['apimachinery']),
    layer('controllers', ['apimachinery', 'registry']),
    layer('http', ['apimachinery', 'registry', 'auth']),
    // Composition-level: the prom-client metrics and the server's lifecycle (health, shutdown),
    // wired by main; no layer below imports them.
    layer('metrics', ['apimachinery', 'storage', 'auth']),
    layer('lifecycle', ['apimachinery', 'storage', 'http', 'metrics']),
    // Client-side commands: talk to a server over HTTPS; only pure helpers from below. The
    // `snapshot` and `defrag` commands work on the SQLite file itself: storage's snapshot and
    // defrag modules, nothing else.
    { ...layer('cli', ['apimachinery', 'resources'], ['^src/storage/sqlite/snapshot-[a-z-]+\\.ts$', '^src/storage/sqlite/store-defrag\\.ts$']), from: { path: '^src/cli/', pathNot: '^src/cli/migrate/' } },
    // `migrate` moves the store itself between backends: it reads and writes storage directly.
    layer('cli/migrate', ['apimachinery', 'storage']),
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
