// Filter: how much work one user may start in one turn of the event loop. Node serves every
// request on one thread, and requests that arrive together (a storm's connections, answered
// together by one group commit, send their next requests together) would all start their work
// in the same turn: a hundred creates started at once are a turn of a hundred creates' CPU, and
// every other client's request, a health probe included, waits that long. Here each user starts
// at most SEATS_PER_TURN seats (work-estimate.ts) per turn; the rest wait, in arrival order, for
// the following turns (a setImmediate each, so the poll phase in between serves the other
// connections), holding no in-flight seat and costing a promise each. A request bigger than the
// budget starts alone in its turn. Go spreads the same burst over every core; kube's priority and
// fairness would queue it. Never delayed: the health and version paths, long-running requests
// and system:masters. The wait counts toward the request timeout (counted from arrival).

import { filter, passThrough, policyOf, STOP, type Entered, type Filter, type RequestState } from './filter.js';
import type { WorkEstimator } from './work-estimate.js';
import { responseClosed } from '../transport/response-closed.js';

/** Seats a user may start per turn of the event loop. */
export const SEATS_PER_TURN = 8;

interface Waiter {
  seats: number;
  go: () => void;
}

export function turnBudgetFilter(estimator: WorkEstimator, seatsPerTurn = SEATS_PER_TURN): Filter {
  if (seatsPerTurn <= 0) return passThrough;
  /** Seats each user started in this turn. */
  let used = new Map<string, number>();
  const waiting = new Map<string, Waiter[]>();
  let scheduled = false;

  const newTurn = (): void => {
    scheduled = false;
    used = new Map();
    for (const [who, queue] of waiting) {
      let mine = 0;
      while (queue.length && (mine === 0 || mine + queue[0]!.seats <= seatsPerTurn)) {
        const w = queue.shift()!;
        mine += w.seats;
        w.go();
      }
      used.set(who, mine);
      if (!queue.length) waiting.delete(who);
    }
    if (used.size) schedule();
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(newTurn);
  };

  /** Waits in the user's queue for a later turn. */
  const wait = async (s: RequestState, queue: Waiter[], seats: number): Promise<Entered> => {
    await new Promise<void>((go) => queue.push({ seats, go }));
    // Gone while it waited: nothing to start.
    if (responseClosed(s.reply.raw)) return STOP;
  };

  return filter({
    enter(s) {
      if (s.isPublic || s.longRunning) return;
      const p = policyOf(s, estimator);
      if (p.privileged) return;
      const { who, seats } = p;
      const mine = used.get(who) ?? 0;
      if (!waiting.has(who) && (mine === 0 || mine + seats <= seatsPerTurn)) {
        used.set(who, mine + seats);
        schedule();
        return;
      }
      let queue = waiting.get(who);
      if (!queue) waiting.set(who, (queue = []));
      return wait(s, queue, seats);
    },
  });
}
