// `npm run attack`: every attack of the suite, each longer than in the tests (ATTACK_DURATION_MS,
// default 30 s) and against a fresh server, printing the figures the closing note of issue #29
// quotes: another client's GET p50/p99 (a new TLS connection per GET) and the server's peak RSS
// and open descriptors, before (baseline), during and after each attack, then one table of all.
// `npm run attack -- slots floods` runs only the attacks whose names contain one of the words.
// Aimed at 127.0.0.1 only, like the tests; a quiet machine gives the figures worth quoting.

import { startServer, type TestServer } from '../e2e/harness.js';
import { formatFigures, type AttackFigures } from './support/measure.js';
import { startTarget } from './support/target.js';
import { stalledHandshakes } from './scenarios/handshake-timeouts.js';
import { handshakeSlots } from './scenarios/handshake-slots.js';
import { formatFlood, h2Flood, type Flood } from './scenarios/h2-floods.js';
import { oversizedFlood } from './scenarios/oversized-bodies.js';
import { pipelinedMalformed } from './scenarios/pipelining.js';
import { formatSigterm, sigtermInFlight } from './scenarios/sigterm.js';
import { slowloris, type Slowloris } from './scenarios/slowloris.js';
import { slowReaders } from './scenarios/slow-readers.js';

const DURATION_MS = Number(process.env.ATTACK_DURATION_MS ?? 30_000);
const only = process.argv.slice(2);

interface Row {
  name: string;
  figures?: AttackFigures;
  note: string;
}

/** One attack on a fresh server: `make` starts it, `run` attacks it and says what it saw besides the figures. */
interface Entry {
  name: string;
  make: () => Promise<TestServer>;
  run: (server: TestServer) => Promise<{ figures?: AttackFigures; note: string }>;
}

const plain = (args: string[] = []) => () => startServer({ args });
const entries: Entry[] = [
  ...(['idle', 'one-byte', 'trickle'] as const).map((kind): Entry => ({
    name: `slots ${kind}`,
    make: plain(),
    run: async (s) => {
      const x = await handshakeSlots(s, { kind, durationMs: DURATION_MS, afterMs: 5000 });
      return { figures: x, note: `${x.opened} connections held` };
    },
  })),
  ...(['hello', 'one-byte'] as const).map((kind): Entry => ({
    name: `stalled handshakes ${kind}`,
    make: plain(['--read-header-timeout', '5s']),
    run: async (s) => {
      const x = await stalledHandshakes(s, { kind, durationMs: DURATION_MS, afterMs: 12_000 });
      return { figures: x, note: `${x.closedByServer} of ${x.opened} closed by the server (deadline 5 s)` };
    },
  })),
  ...(
    [
      ['h2', 'watch'],
      ['http/1.1', 'watch'],
      ['h2', 'list'],
    ] as const
  ).map(([protocol, what]): Entry => ({
    name: `slow readers ${protocol} ${what}`,
    make: plain(),
    run: async (s) => {
      const x = await slowReaders(s, { protocol, what, readers: what === 'watch' ? 5 : 20, writes: what === 'watch' ? 300 : undefined, durationMs: DURATION_MS, drainMs: 60_000 });
      const growth = x.during.peakRssMB - x.baseline.endRssMB;
      return { figures: x, note: `${x.writes} writes; RSS growth ${growth.toFixed(0)} MB${x.controlGrowthMB !== undefined ? ` (${x.controlGrowthMB.toFixed(0)} MB for the same writes unwatched)` : ''}; streams: ${[...new Set(x.outcomes)].join(', ')}` };
    },
  })),
  {
    name: 'pipelining malformed follower',
    make: plain(),
    run: async (s) => {
      const x = await pipelinedMalformed(s, { connections: 8, durationMs: DURATION_MS });
      const good = x.connections.filter((c) => c.responses.map((r) => r.status).join() === '201,400').length;
      return { figures: x, note: `${good} of ${x.connections.length} connections answered 201 then 400` };
    },
  },
  {
    name: 'oversized bodies',
    make: plain(),
    run: async (s) => {
      const x = await oversizedFlood(s, { durationMs: DURATION_MS });
      return { figures: x, note: `outcomes ${JSON.stringify([...x.outcomes])}` };
    },
  },
  ...(['rapid-reset', 'reset-uploads', 'settings', 'ping', 'continuation', 'priority', 'protocol-errors'] as Flood[]).map((flood): Entry => ({
    name: `floods ${flood}`,
    make: () => startTarget(),
    run: async (s) => {
      const x = await h2Flood(s as Awaited<ReturnType<typeof startTarget>>, { flood, durationMs: DURATION_MS });
      const errors = s.log().split('\n').filter((l) => /"level":(5|6)\d/.test(l)).length;
      return { figures: x, note: `${formatFlood(x).trim()}; ${errors} error lines logged` };
    },
  })),
  ...(['http1-headers', 'h2-headers', 'http1-body', 'h2-body'] as Slowloris[]).map((kind): Entry => ({
    name: `slowloris ${kind}`,
    make: plain(kind.endsWith('headers') ? ['--read-header-timeout', '5s'] : ['--request-timeout', '5s']),
    run: async (s) => {
      const x = await slowloris(s, { kind, connections: 500, durationMs: DURATION_MS, afterMs: 10_000 });
      return { figures: x, note: `${x.ended} of ${x.opened} ended by the server; answers ${JSON.stringify(x.answers)}` };
    },
  })),
];

const rows: Row[] = [];
for (const e of entries.filter((e) => only.length === 0 || only.some((w) => e.name.includes(w)))) {
  const server = await e.make();
  try {
    const r = await e.run(server);
    rows.push({ name: e.name, ...r });
    if (r.figures) console.log(formatFigures(r.figures));
    console.log(`  ${r.note}\n`);
  } catch (err) {
    rows.push({ name: e.name, note: `FAILED: ${(err as Error).message}` });
    console.log(`${e.name}: FAILED: ${(err as Error).stack}\n`);
  } finally {
    await server.stop();
  }
}
// SIGTERM makes its own servers (they exit).
for (const protocol of ['http/1.1', 'h2'] as const) {
  if (only.length && !only.some((w) => `sigterm ${protocol}`.includes(w))) continue;
  const x = await sigtermInFlight({ protocol, inFlight: 100, idle: 50 });
  console.log(`${formatSigterm(x)}\n`);
  rows.push({ name: `sigterm ${protocol}`, note: `exit ${x.exitCode} after ${x.exitMs} ms; ${x.answers.filter((a) => a.status === 201).length}/${x.answers.length} answered; peak RSS ${x.peakRssMB.toFixed(0)} MB, fds ${x.peakFds}` });
}

const ms = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? '-' : `${Math.round(n)}`);
console.log('| attack | GET p99 before / during / after (ms) | peak RSS before / during / after (MB) | fds peak during / end after | notes |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  const f = r.figures;
  console.log(
    f
      ? `| ${r.name} | ${ms(f.baseline.p99)} / ${ms(f.during.p99)} / ${ms(f.after.p99)} | ${ms(f.baseline.peakRssMB)} / ${ms(f.during.peakRssMB)} / ${ms(f.after.peakRssMB)} | ${f.during.peakFds} / ${f.after.endFds} | ${r.note} |`
      : `| ${r.name} | | | | ${r.note} |`,
  );
}
