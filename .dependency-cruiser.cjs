/**
 * Layer rules (docs/architecture.md): each layer imports only the layers below it, plus the
 * single files named in `files` (for a layer that needs one pure helper, not the whole layer).
 */
const layer = (from, allowed, files = []) => ({
  name: `${from}-imports-downward-only`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: '^src/', pathNot: [`^src/${from}/`, ...allowed.map((l) => `^src/${l}/`), ...files.map((f) => `^src/${f.replace(/\./g, '\\.')}$`)] },
});
module.exports = {
  forbidden: [
    layer('apimachinery', []),
    // Storage shares the one retry backoff (pure arithmetic) with the controllers.
    layer('storage', [], ['apimachinery/backoff.ts']),
    layer('registry', ['apimachinery', 'storage']),
    layer('resources', ['apimachinery', 'registry']),
    layer('auth', ['apimachinery']),
    layer('controllers', ['apimachinery', 'registry']),
    layer('http', ['apimachinery', 'registry', 'auth']),
    // Composition-level: the prom-client metrics and the server's lifecycle (health, shutdown),
    // wired by main; no layer below imports them.
    layer('metrics', ['apimachinery', 'storage', 'auth']),
    layer('lifecycle', ['apimachinery', 'storage', 'http', 'metrics']),
    // Client-side commands: talk to a server over HTTPS; only pure helpers from below.
    { ...layer('cli', ['apimachinery', 'resources']), from: { path: '^src/cli/', pathNot: '^src/cli/migrate/' } },
    // `migrate` moves the store itself between backends: it reads and writes storage directly.
    layer('cli/migrate', ['apimachinery', 'storage']),
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
