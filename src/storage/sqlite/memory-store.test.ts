// Memory backend: the shared conformance suite.

import { describeRevisionedStore } from '../../../test/support/storage/storage-conformance.js';
import { MemoryStore } from './memory-store.js';

describeRevisionedStore('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
