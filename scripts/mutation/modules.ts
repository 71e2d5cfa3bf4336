// The critical modules that mutation testing covers (`npm run mutation`, docs/testing.md): for
// each, the source files Stryker mutates and the test files that exercise them. Both are globs,
// so a file added beside the others is picked up without editing this list. Each module is held
// to the floor on its own; a source file belongs to one module only (mutation-modules.test.ts).
//
// Test lists name the unit and in-process integration tests that cover the module: Stryker runs
// each mutant only against the listed files whose run executed its code (per-test coverage), never
// the whole suite. End-to-end tests that start the server in a child process are not listed:
// Stryker cannot see which mutants they cover, and they take seconds to minutes per run.

export interface CriticalModule {
  /** What `npm run mutation -- <name>` selects. */
  name: string;
  /** One line for the score table and the docs. */
  what: string;
  /** Source globs relative to the repository root (`!glob` excludes); `*.test.ts` is never mutated. */
  mutate: string[];
  /** Test file globs (TypeScript sources; Stryker runs their compiled JavaScript). */
  tests: string[];
  /**
   * A module not yet at MUTATION_FLOOR: the score it was measured at, which it may not fall below
   * until tests raise it to the floor (then this goes). Shown as held in every run's table.
   */
  heldAt?: number;
}

/** Killed + timed out over valid mutants, in percent; every module must reach it. */
export const MUTATION_FLOOR = 85;

/**
 * Test files that take a second or more per run (measured here). Each mutant runs the files that
 * cover it in list order and stops at the first that fails, so these go last: a faster file
 * usually kills the mutant first. A file not listed counts as fast.
 */
export const slowTests: readonly string[] = [
  'src/resources/clustertrustbundles/go-x509/hostile-input.test.ts',
  'src/auth/webhook/token-webhook-authenticator.test.ts',
  'src/auth/webhook/webhook-authorizer.test.ts',
  'test/integration/webhook-authorizer.test.ts',
  'src/storage/cache/watch-cache.test.ts',
  'src/storage/cache/watch-cache-recovery.test.ts',
  'src/storage/sqlite/memory-store.test.ts',
  'src/storage/sqlite/sqlite-writer-thread.test.ts',
  'src/auth/jwt/jwt-authenticator.test.ts',
  'src/storage/sqlite/sqlite-store.test.ts',
  'src/storage/etcd/etcd-read-batch.test.ts',
  'src/storage/etcd/etcd-compactor.test.ts',
  'src/storage/etcd/etcd-store.edges.test.ts',
  'src/storage/etcd/etcd-store.test.ts',
  'src/apimachinery/managed-fields/managed-fields-linearity.test.ts',
];

export const criticalModules: readonly CriticalModule[] = [
  {
    name: 'servicecidr-validation',
    what: 'ServiceCIDR validation and CIDR parsing',
    mutate: ['src/resources/servicecidrs/{cidr,validation,strategy}.ts'],
    tests: ['src/resources/servicecidrs/**/*.test.ts', 'src/config/service-ip-range.test.ts'],
  },
  {
    name: 'trustbundle-validation',
    what: 'ClusterTrustBundle validation, strategy and certificate validity',
    mutate: ['src/resources/clustertrustbundles/{validation,strategy,certificate-validity}.ts'],
    tests: ['src/resources/clustertrustbundles/**/*.test.ts'],
  },
  {
    name: 'pem-x509',
    what: 'PEM decoding and the Go-compatible x509 parser',
    mutate: ['src/resources/clustertrustbundles/pem-decode.ts', 'src/resources/clustertrustbundles/go-x509/*.ts'],
    tests: ['src/resources/clustertrustbundles/**/*.test.ts'],
  },
  {
    name: 'managed-fields',
    what: 'server-side apply: field sets, managedFields, typed merge',
    mutate: ['src/apimachinery/managed-fields/*.ts'],
    tests: ['src/apimachinery/managed-fields/*.test.ts'],
  },
  {
    name: 'strategic-merge',
    what: 'strategic merge patch',
    mutate: ['src/apimachinery/strategic-merge-patch.ts'],
    tests: ['src/apimachinery/strategic-merge-patch*.test.ts'],
  },
  {
    name: 'json-patch',
    what: 'JSON patch and JSON merge patch',
    mutate: ['src/apimachinery/{json-patch,merge-patch}.ts'],
    tests: ['src/apimachinery/{json,merge}-patch*.test.ts', 'src/http/endpoints/patch-types.test.ts'],
  },
  {
    name: 'selectors',
    what: 'label and field selectors',
    mutate: ['src/apimachinery/{label,field}-selector.ts'],
    tests: ['src/apimachinery/{selectors,label-selector,field-selector}*.test.ts'],
  },
  {
    name: 'generic-store',
    what: "the registry's generic store",
    mutate: ['src/registry/generic-store.ts'],
    tests: ['src/registry/*.test.ts', 'test/integration/generic-store*.test.ts'],
  },
  {
    name: 'watch-cache',
    what: 'the watch cache',
    mutate: ['src/storage/cache/watch-cache.ts'],
    tests: ['src/storage/cache/watch-cache*.test.ts'],
  },
  {
    name: 'sqlite-store',
    what: "the SQLite backend's write and compaction paths",
    // sqlite-writer-worker.ts runs only on the writer thread, where Stryker sees no coverage; the
    // batch code it runs (sqlite-batch.ts) is mutated here through the inline writer.
    mutate: ['src/storage/sqlite/{sqlite-store,sqlite-batch,sqlite-writer}.ts', 'src/storage/compactor.ts'],
    tests: ['src/storage/sqlite/{sqlite-store,memory-store,sqlite-writer-thread}*.test.ts', 'src/storage/compactor*.test.ts'],
  },
  {
    name: 'etcd-store',
    what: "the etcd backend's write and compaction paths",
    mutate: ['src/storage/etcd/{etcd-store,etcd-compactor,etcd-read-batch}.ts'],
    tests: ['src/storage/etcd/{etcd-store,etcd-compactor,etcd-rewind,etcd-read-batch}*.test.ts'],
  },
  {
    name: 'etcd-write-outcome',
    what: "etcd write outcomes and etcd's errors",
    mutate: ['src/storage/etcd/{etcd-write-outcome,etcd-errors}.ts'],
    tests: ['src/storage/etcd/{etcd-write-outcome,etcd-errors}*.test.ts'],
  },
  {
    name: 'authentication',
    what: 'authenticators: x509, tokens, ServiceAccounts, OIDC, token webhook',
    mutate: [
      'src/auth/{authenticator,x509-authenticator,token-authenticator,service-account-authenticator,bearer-token,go-csv}.ts',
      'src/auth/jwt/jwt-authenticator.ts',
      'src/auth/webhook/token-webhook-authenticator.ts',
    ],
    tests: [
      'src/auth/{authenticator,x509-authenticator,token-authenticator,service-account-authenticator,bearer-token,go-csv}*.test.ts',
      'src/auth/jwt/{jwt-authenticator,user-validation-rules}*.test.ts',
      'src/auth/webhook/token-webhook-authenticator*.test.ts',
      'src/config/authn-wiring.test.ts',
    ],
  },
  {
    name: 'authorization',
    what: 'RBAC and webhook authorization',
    mutate: ['src/auth/rbac/{rule-matching,rbac-authorizer}.ts', 'src/auth/webhook/{webhook-authorizer,subject-access-review}.ts'],
    tests: ['src/auth/rbac/*.test.ts', 'src/auth/webhook/{webhook-authorizer,subject-access-review}*.test.ts', 'test/integration/webhook-authorizer.test.ts', 'src/http/filters/authorization.test.ts'],
  },
  {
    name: 'impersonation',
    what: 'impersonation and its filter',
    mutate: ['src/auth/impersonation.ts', 'src/http/filters/impersonation.ts'],
    tests: ['src/auth/impersonation*.test.ts', 'src/http/filters/impersonation*.test.ts'],
  },
  {
    name: 'attest-admission',
    what: 'ClusterTrustBundle attest admission',
    mutate: ['src/auth/ctb-attest-admission.ts'],
    tests: ['src/auth/ctb-attest-admission*.test.ts'],
  },
  {
    name: 'request-filters',
    what: 'the request filters (authn, authz, in-flight, deadlines, audit, metrics…)',
    // impersonation.ts belongs to its own module; test-state.ts is the filters' test helper.
    mutate: ['src/http/filters/*.ts', '!src/http/filters/{impersonation,test-state}.ts'],
    tests: ['src/http/filters/*.test.ts'],
  },
];
