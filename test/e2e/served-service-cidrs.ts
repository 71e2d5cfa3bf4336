// What a server started on a store serves, for the kill tests of the operator commands
// (migrate-kill, restore-kill): every ServiceCIDR by name, read page by page, as its uid, its
// first CIDR and the length of the ~2 KB note the large-store fill gives it. Two stores serve the
// same objects when these maps are equal.

import assert from 'node:assert/strict';
import { startServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

export async function servedServiceCidrs(opts: Parameters<typeof startServer>[0]): Promise<Map<string, string>> {
  const server = await startServer(opts);
  try {
    const out = new Map<string, string>();
    let next = '';
    do {
      const r = await server.request('GET', `${SC}?limit=1000${next ? `&continue=${encodeURIComponent(next)}` : ''}`);
      assert.equal(r.status, 200, r.text);
      for (const o of r.json.items) out.set(o.metadata.name, `${o.metadata.uid} ${o.spec.cidrs[0]} ${o.metadata.annotations.note.length}`);
      next = r.json.metadata.continue ?? '';
    } while (next);
    return out;
  } finally {
    await server.stop({ keepData: true });
  }
}
