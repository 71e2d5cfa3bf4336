// The store's size, read when /metrics is scraped: kube-apiserver's `apiserver_storage_size_bytes`
// (1.28+; the database file physically allocated, per storage cluster, `storage_cluster_id`
// `etcd-0` as kube names its one etcd, `sqlite-0` for the embedded store), and the part of it
// in use (not free pages: what `defrag` would leave; etcd's dbSizeInUse). A store that cannot be
// asked (etcd away; kube gives it a second) has no sample in that scrape, as in kube.

import { Gauge, type Registry } from 'prom-client';

export interface StorageSize {
  /** Bytes the database takes on disk (SQLite: the file and its WAL; etcd: its dbSize). */
  sizeBytes: number;
  /** Bytes of pages holding data (etcd: dbSizeInUse). */
  inUseBytes: number;
}

export interface StorageSizeSource {
  /** kube's label value: `etcd-0`, or `sqlite-0`. */
  clusterId: string;
  /** The sizes now; undefined (or a rejection) when the store cannot say. */
  read(): Promise<StorageSize | undefined>;
}

export function registerStorageSizeMetrics(registry: Registry, source: StorageSizeSource): void {
  let last: Promise<StorageSize | undefined> | undefined;
  // Both gauges are collected in one scrape: one read of the store serves both.
  const read = (): Promise<StorageSize | undefined> => {
    last ??= source.read().catch(() => undefined);
    const p = last;
    void p.finally(() => setImmediate(() => (last === p ? (last = undefined) : undefined)));
    return p;
  };
  new Gauge({
    name: 'apiserver_storage_size_bytes',
    help: 'Size of the storage database file physically allocated in bytes.',
    labelNames: ['storage_cluster_id'],
    registers: [registry],
    async collect() {
      this.reset();
      const size = await read();
      if (size) this.set({ storage_cluster_id: source.clusterId }, size.sizeBytes);
    },
  });
  new Gauge({
    name: 'platform_apiserver_storage_size_in_use_bytes',
    help: 'Bytes of the storage database holding data (not free pages): what a defrag would leave.',
    labelNames: ['storage_cluster_id'],
    registers: [registry],
    async collect() {
      this.reset();
      const size = await read();
      if (size) this.set({ storage_cluster_id: source.clusterId }, size.inUseBytes);
    },
  });
}
