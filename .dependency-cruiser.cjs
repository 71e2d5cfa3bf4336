/** Layer rules from DESIGN.md: each layer imports only the layers below it. */
const layer = (from, allowed, files = []) => ({
  name: `${from}-imports-downward-only`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: '^src/', pathNot: [`^src/${from}/`, ...allowed.map((l) => `^src/${l}/`), ...files] },
});
module.exports = {
  forbidden: [
    layer('apimachinery', []),
    layer('storage', []),
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
    // `snapshot` commands work on the SQLite file itself: storage's snapshot modules, nothing else.
    layer('cli', ['apimachinery', 'resources'], ['^src/storage/snapshot-[a-z-]+\\.ts$']),
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
