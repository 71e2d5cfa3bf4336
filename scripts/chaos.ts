// The long run of the etcd fault checker (test/support/etcd-chaos.ts): `npm run chaos`, with
// CHAOS_DURATION_S (default 300), CHAOS_MEMBERS (default 3), CHAOS_SEED and CHAOS_FAULT_EVERY_MS.
// Prints the faults injected, writes, events checked and divergences found; exits 1 on any
// divergence.

import { runChaos } from '../test/support/etcd-chaos.js';

const durationS = Number(process.env.CHAOS_DURATION_S ?? process.argv[2] ?? 300);
const members = Number(process.env.CHAOS_MEMBERS ?? 3);
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100000);
const faultEveryMs = Number(process.env.CHAOS_FAULT_EVERY_MS ?? 4000);
const started = Date.now();
const stamp = () => `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`;
console.log(`etcd fault checker: ${durationS} s, ${members} member(s), seed ${seed}, a fault every ~${faultEveryMs} ms`);
const figures = await runChaos({ durationMs: durationS * 1000, members, seed, faultEveryMs, restore: true, log: (line) => console.log(`${stamp()} ${line}`) });
const faults = Object.entries(figures.faults).map(([k, v]) => `${k} ${v}`).join(', ');
const total = Object.values(figures.faults).reduce((a, b) => a + b, 0);
console.log(`
faults injected:   ${total} (${faults})
writes:            ${figures.writes.acknowledged} acknowledged, ${figures.writes.failed} answered as failed, ${figures.writes.mayHaveApplied} answered "may have been applied", ${figures.writes.rewound} rewound by the restore
watch sessions:    ${figures.watchSessions}
events checked:    ${figures.eventsChecked}
quiet-point checks: ${figures.quietChecks} (each replica's cache against etcdctl get --prefix)
divergences found: ${figures.divergences.length}`);
for (const d of figures.divergences) console.log(`  - ${d}`);
process.exit(figures.divergences.length ? 1 : 0);
