// A whole prefix listed in pages at one revision, as kube's reflector lists for its cacher
// (pages of at most 500, each read at the first page's revision so together they are one
// snapshot). Pages are also bounded in bytes: the page size follows the values' size (a store
// of 1 MB objects is read a few objects at a time), and a page the connection refuses as too
// large is asked again at half the size. So any total size can be listed, with memory in flight
// bounded by one page, whatever the connection's message cap.

import { isStorageError, type KeyValue, type ListResult, type RevisionedStore } from '../revisioned-store.js';

export interface PagedListOptions {
  /** Most keys per page (kube's reflector: 500). */
  maxKeys?: number;
  /** Keys in the first page, before the values' size is known. */
  firstKeys?: number;
  /** Target bytes of values per page. */
  pageBytes?: number;
}

const DEFAULTS: Required<PagedListOptions> = { maxKeys: 500, firstKeys: 50, pageBytes: 16 * 1024 * 1024 };

/** Every key under `prefix` at one revision, read page by page. */
export async function listInPages(store: RevisionedStore, prefix: string, opts: PagedListOptions = {}): Promise<ListResult> {
  const o = { ...DEFAULTS, ...opts };
  const kvs: KeyValue[] = [];
  let revision = 0;
  let startAfter: string | undefined;
  let limit = Math.min(o.firstKeys, o.maxKeys);
  /** The most keys a page may have after the connection refused a larger one. */
  let ceiling = o.maxKeys;
  for (;;) {
    let page: ListResult;
    try {
      page = await store.list(prefix, { limit, ...(startAfter !== undefined ? { startAfter } : {}), ...(revision ? { revision } : {}) });
    } catch (err) {
      // The page was larger than the connection takes: ask for fewer keys (one always fits,
      // since one value fits in a write).
      if (isStorageError(err, 'ValueTooLarge') && limit > 1) {
        ceiling = limit = Math.max(1, Math.floor(limit / 2));
        continue;
      }
      throw err;
    }
    if (!revision) revision = page.revision;
    for (const kv of page.kvs) kvs.push(kv);
    if (!page.more || page.kvs.length === 0) return { kvs, more: false, revision };
    startAfter = page.kvs[page.kvs.length - 1]!.key;
    const bytes = page.kvs.reduce((n, kv) => n + kv.value.byteLength + kv.key.length, 0);
    const perKey = Math.max(1, bytes / page.kvs.length);
    limit = Math.max(1, Math.min(ceiling, o.maxKeys, Math.floor(o.pageBytes / perKey)));
  }
}
