// Bounded waiting for tests that watch a system converge: a hang fails the test with a name
// instead of stalling the suite.

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `p`, or a rejection naming `what` after `ms`. */
export function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** Polls `fn` every `everyMs` for at most `ms` until `done` holds; returns the last answer (the caller asserts on it). */
export async function eventually<T>(fn: () => Promise<T>, done: (t: T) => boolean, ms = 15_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await fn();
  while (!done(last) && Date.now() < deadline) {
    await sleep(everyMs);
    last = await fn();
  }
  return last;
}

/** Polls `probe` every 200 ms until it holds; fails the test naming `what` after `ms`. */
export async function waitUntil(what: string, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(200);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}
