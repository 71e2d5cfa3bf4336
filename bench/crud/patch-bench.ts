// Patch and apply throughput per patch type beside plain update (PUT), in the same run against
// the same server: every request really changes the object (a fresh label value per request),
// so each is a full read-modify-write with managedFields bookkeeping and a durable commit.

import { runLoad, type LoadResult } from '../lib/http-load.js';

export interface PatchBenchOptions {
  url: string;
  ca: string;
  token: string;
  durationMs: number;
  connections: number;
  /** Creates the object a write type works on. */
  create(name: string): Promise<void>;
}

export interface PatchBenchRow {
  label: string;
  result: LoadResult;
  /** Requests per second relative to update: >1 faster. */
  ratioToUpdate: number;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const config = (name: string) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, labels: { bench: 'yes', v: '[<id>]' } },
  spec: { cidrs: ['10.200.0.0/24'] },
});

const KINDS: { label: string; method: string; contentType: string; query: string; body(name: string): string }[] = [
  { label: 'update (PUT)', method: 'PUT', contentType: 'application/json', query: '', body: (n) => JSON.stringify(config(n)) },
  { label: 'json patch', method: 'PATCH', contentType: 'application/json-patch+json', query: '', body: () => '[{"op":"add","path":"/metadata/annotations","value":{"v":"[<id>]"}}]' },
  { label: 'merge patch', method: 'PATCH', contentType: 'application/merge-patch+json', query: '', body: () => '{"metadata":{"labels":{"v":"[<id>]"}}}' },
  { label: 'strategic patch', method: 'PATCH', contentType: 'application/strategic-merge-patch+json', query: '', body: () => '{"metadata":{"labels":{"v":"[<id>]"}}}' },
  { label: 'server-side apply', method: 'PATCH', contentType: 'application/apply-patch+yaml', query: '?fieldManager=bench', body: (n) => JSON.stringify(config(n)) },
];

export async function benchPatchTypes(opts: PatchBenchOptions): Promise<PatchBenchRow[]> {
  const results: { label: string; result: LoadResult }[] = [];
  for (const [i, kind] of KINDS.entries()) {
    // Objects of their own per write type and per connection: this measures the cost of a
    // write, not contention on one object (which retries, as kube's GuaranteedUpdate does).
    const prefix = `patch-bench-${i}-`;
    for (let c = 0; c < opts.connections; c++) await opts.create(`${prefix}${c}`);
    const name = `${prefix}[<slot>]`;
    const result = await runLoad({
      url: opts.url,
      ca: opts.ca,
      connections: opts.connections,
      durationMs: opts.durationMs,
      headers: { authorization: `Bearer ${opts.token}`, 'content-type': kind.contentType },
      method: kind.method,
      path: `${SC}/${name}${kind.query}`,
      body: kind.body(name),
      slots: opts.connections,
    });
    results.push({ label: kind.label, result });
  }
  const update = results[0]!.result.perSecond;
  return results.map((r) => ({ ...r, ratioToUpdate: r.result.perSecond / update }));
}
