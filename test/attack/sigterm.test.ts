// SIGTERM with requests in flight (issue #29), on HTTP/1.1 and HTTP/2: every request in flight
// is answered, HTTP/1.1 answers say `Connection: close`, idle kept-alive connections are closed,
// and the process exits at once instead of waiting out --shutdown-timeout (60 s) for connections
// it kept alive.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSigterm, sigtermInFlight } from './scenarios/sigterm.js';

describe('SIGTERM with requests in flight', () => {
  for (const protocol of ['http/1.1', 'h2'] as const) {
    test(`${protocol}: in-flight requests answered, then the server exits promptly`, { timeout: 180_000 }, async () => {
      const x = await sigtermInFlight({ protocol, inFlight: 20, idle: 10 });
      console.log(formatSigterm(x));
      assert.deepEqual(x.answers.filter((a) => a.status !== 201), [], 'every request in flight at the signal is answered');
      if (protocol === 'http/1.1') assert.deepEqual(x.answers.filter((a) => a.connection !== 'close'), [], 'keep-alives stop during shutdown');
      assert.equal(x.exitCode, 0, x.log);
      // Nothing is left to wait for once the answers are out: 10 s allows for a loaded machine.
      assert.ok(x.exitMs < 10_000, `the server took ${x.exitMs} ms to exit`);
    });
  }
});
