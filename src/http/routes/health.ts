// /healthz, /livez and /readyz as kube-apiserver serves them: each endpoint runs its named
// checks; ?verbose lists them ("[+]ping ok"), ?exclude=NAME skips one, a failure lists every
// check with "[-]NAME failed: reason withheld" and answers 500 "<endpoint> check failed"; a
// single check is served at /<endpoint>/<NAME> (its reason shown, as kube does there).

export interface HealthCheck {
  /** kube's check names: ping, log, etcd, etcd-readiness, informer-sync, poststarthook/…, shutdown. */
  readonly name: string;
  /** Undefined when healthy; otherwise why not (logged and shown only on the check's own path). */
  check(): string | undefined | Promise<string | undefined>;
}

export interface HealthChecks {
  /** /livez (and /healthz): is the process worth keeping? */
  livez: readonly HealthCheck[];
  /** /readyz: should it get traffic? */
  readyz: readonly HealthCheck[];
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export interface HealthResponse {
  code: number;
  body: string;
}

export const alwaysOk = (name: string): HealthCheck => ({ name, check: () => undefined });

/** The checks a server without wiring has (tests, or before main adds its own). */
export const DEFAULT_HEALTH_CHECKS: HealthChecks = { livez: [alwaysOk('ping'), alwaysOk('log')], readyz: [alwaysOk('ping'), alwaysOk('log')] };

async function run(c: HealthCheck): Promise<string | undefined> {
  try {
    return await c.check();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The answer for /<endpoint>[/<check name>], or undefined when no such check exists (a 404).
 * `onFailure` hears each failing check's reason (the log; the body withholds it).
 */
export async function healthResponse(
  checks: HealthChecks,
  endpoint: HealthEndpoint,
  checkPath: string,
  query: URLSearchParams,
  onFailure: (name: string, reason: string) => void = () => {},
): Promise<HealthResponse | undefined> {
  const list = endpoint === 'readyz' ? checks.readyz : checks.livez;
  if (checkPath) {
    const one = list.find((c) => c.name === checkPath);
    if (!one) return undefined;
    const reason = await run(one);
    return reason === undefined ? { code: 200, body: 'ok' } : { code: 500, body: `internal server error: ${reason}\n` };
  }
  const excluded = new Set(query.getAll('exclude').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean));
  const results = await Promise.all(list.map(async (c) => (excluded.has(c.name) ? { name: c.name, excluded: true } : { name: c.name, reason: await run(c) })));
  const lines: string[] = [];
  let failed = false;
  for (const r of results) {
    if ('excluded' in r) {
      excluded.delete(r.name);
      lines.push(`[+]${r.name} excluded: ok`);
    } else if (r.reason !== undefined) {
      failed = true;
      onFailure(r.name, r.reason);
      lines.push(`[-]${r.name} failed: reason withheld`);
    } else lines.push(`[+]${r.name} ok`);
  }
  if (excluded.size) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((e) => JSON.stringify(e)).join(',')}`);
  if (failed) return { code: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  if (!query.has('verbose')) return { code: 200, body: 'ok' };
  return { code: 200, body: `${lines.join('\n')}\n${endpoint} check passed\n` };
}
