// The memory backend: the SQLite store on an in-memory database. Same code, same semantics,
// nothing kept across restarts (tests, throwaway servers).

import { SqliteStore } from './sqlite-store.js';

export class MemoryStore extends SqliteStore {
  constructor() {
    super({ path: ':memory:', durability: 'normal' });
  }
}
