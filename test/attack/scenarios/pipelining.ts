// A valid POST with a malformed request pipelined behind it in the same packet, on many
// connections at once. As Go answers it: the POST's 201 first, then the 400 for the bytes after
// it, then the connection is closed. Before the fix the 400 went out at once, the connection was
// ended, and the POST (stored all the same) never had its answer: a client took the 400 for it.

import { exchange, parseResponses, requestBytes, type RawResponse } from '../support/http1-raw.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';
import type { TestServer } from '../../e2e/harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

export interface PipelineFigures extends AttackFigures {
  /** Each connection's responses, in order, and the object its POST was to create. */
  connections: { name: string; responses: RawResponse[]; closedByServer: boolean }[];
}

export async function pipelinedMalformed(server: TestServer, o: { connections: number; durationMs: number }): Promise<PipelineFigures> {
  const connections: PipelineFigures['connections'] = [];
  let n = 0;
  const one = async (): Promise<void> => {
    const name = `pipelined-${n++}`;
    const post = requestBytes('POST', SC, server.token, JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.77.0.0/24'] } }));
    const r = await exchange(server.port, server.caCertPem, Buffer.concat([post, Buffer.from('GARBAGE\r\n\r\n')]));
    connections.push({ name, responses: parseResponses(r.bytes), closedByServer: r.closedByServer });
  };
  const figures = await measureAttack({
    name: 'pipelined POST with a malformed follower',
    server,
    durationMs: o.durationMs,
    start: () => {
      let running = true;
      const workers = Array.from({ length: o.connections }, async () => {
        while (running) await one();
      });
      return {
        stop: async () => {
          running = false;
          await Promise.all(workers);
        },
      };
    },
  });
  return { ...figures, connections };
}
