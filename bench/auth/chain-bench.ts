// The filter chain alone, in process: what the real chain (chain.ts, every filter on, the real
// request metrics) costs a GET beside calling the handler directly on the same fake exchange
// (test-state.ts), so the figure is the chain's own work, without TLS, HTTP or storage.
// Authentication and authorization answer at once (their own cost is not the chain's). Each
// figure is the fastest of five rounds.

import { Registry } from 'prom-client';
import { buildChain } from '../../src/http/filters/chain.js';
import type { RequestState } from '../../src/http/filters/filter.js';
import { fakeExchange } from '../../src/http/filters/test-state.js';
import { RequestMetrics } from '../../src/metrics/request-metrics.js';
import { silentLogger } from '../../src/apimachinery/request-context.js';
import { ALL_RULES } from '../../src/auth/authorizer.js';

const URL = '/apis/networking.platform.io/v1/servicecidrs/bench-get';

export async function benchChain(requests = 200_000): Promise<{ chainUs: number; handlerUs: number }> {
  const metrics = new RequestMetrics(new Registry(), [{ group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR', plural: 'servicecidrs', subresources: ['status'] }]);
  const user = { username: 'bench', groups: ['system:authenticated'] };
  const handler = async (s: RequestState): Promise<void> => {
    s.reply.raw.statusCode = 200;
  };
  const chain = buildChain(
    {
      authenticator: { authenticate: async () => ({ kind: 'user', user }) },
      authorizer: { authorize: async () => ({ decision: 'allow', reason: '' }), rulesFor: async () => ALL_RULES },
      clientCertificates: false,
      limits: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 },
      maxEventLoopDelayMs: 1000,
      eventLoopLag: () => 0,
      requestTimeoutMs: 60_000,
      observer: metrics,
      served: (group, version, resource) => `${group}/${version}/${resource}` === 'networking.platform.io/v1/servicecidrs',
      logger: silentLogger,
    },
    handler,
  );
  const run = async (through: (s: RequestState) => Promise<void>, n: number): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const x = fakeExchange({ method: 'GET', url: URL, headers: { authorization: 'Bearer bench' } });
      await through(x.state);
      // The response is over: seats back, the request counted.
      x.close();
    }
    return ((performance.now() - started) * 1000) / n;
  };
  await run(chain, requests / 10);
  await run(handler, requests / 10);
  // Rounds of each in turn; the fastest of each counts (a shared machine only ever slows a round).
  let chainUs = Infinity;
  let handlerUs = Infinity;
  for (let round = 0; round < 5; round++) {
    chainUs = Math.min(chainUs, await run(chain, requests / 5));
    handlerUs = Math.min(handlerUs, await run(handler, requests / 5));
  }
  return { chainUs, handlerUs };
}
