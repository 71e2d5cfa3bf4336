// Deadlines without a timer per request: the request timeout and the in-flight seats' deadline
// are entries in lists kept sorted by deadline (one list per duration, so an entry almost always
// goes at the tail), each list swept by one Node timer armed for its earliest entry. Adding and
// removing an entry is a few pointer moves; a request that ends in time costs no timer at all.
// A list's timer, armed once, stays armed while requests come and go (it is re-armed when it
// fires, for the entry then first), so a steady load arms about one timer per duration per
// duration's length, not one per request.

/** Something with a deadline: `expire()` runs at `at` (performance.now()), unless removed before. */
export abstract class DeadlineEntry {
  at = 0;
  /** The list holding the entry, while it waits. */
  deadlineList: DeadlineList | undefined = undefined;
  prevDeadline: DeadlineEntry | undefined = undefined;
  nextDeadline: DeadlineEntry | undefined = undefined;

  abstract expire(): void;
}

interface DeadlineList {
  readonly key: number;
  head: DeadlineEntry | undefined;
  tail: DeadlineEntry | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The deadline the timer was armed for: when it fires, entries up to it are due whatever the clock says. */
  armedFor: number;
}

export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();

  /**
   * `keepAlive`: whether waiting entries keep the process alive (the request timeout: a handler
   * that waits on nothing else must still be answered); the timer never does once its list is empty.
   */
  constructor(private readonly keepAlive: boolean) {}

  /** Expires `entry` at `at`; `key` names its list (its duration: entries of one list come almost in deadline order). */
  add(entry: DeadlineEntry, at: number, key: number): void {
    let list = this.lists.get(key);
    if (!list) this.lists.set(key, (list = { key, head: undefined, tail: undefined, timer: undefined, armedFor: 0 }));
    entry.at = at;
    entry.deadlineList = list;
    // From the tail back to the first entry not later than this one (almost always the tail).
    let before = list.tail;
    while (before && before.at > at) before = before.prevDeadline;
    const after = before ? before.nextDeadline : list.head;
    entry.prevDeadline = before;
    entry.nextDeadline = after;
    if (before) before.nextDeadline = entry;
    else list.head = entry;
    if (after) after.prevDeadline = entry;
    else list.tail = entry;
    if (!list.timer) this.arm(list);
    else if (list.head === entry && list.armedFor > at) {
      clearTimeout(list.timer);
      this.arm(list);
    } else if (this.keepAlive && list.head === entry && !after) list.timer.ref();
  }

  /** Forgets `entry` (done in time); nothing when it is not waiting. */
  remove(entry: DeadlineEntry): void {
    const list = entry.deadlineList;
    if (!list) return;
    const { prevDeadline: before, nextDeadline: after } = entry;
    if (before) before.nextDeadline = after;
    else list.head = after;
    if (after) after.prevDeadline = before;
    else list.tail = before;
    entry.deadlineList = entry.prevDeadline = entry.nextDeadline = undefined;
    // Nothing waits: the armed timer may stay (the next request reuses it) but holds nothing up.
    if (!list.head && this.keepAlive) list.timer?.unref();
  }

  private arm(list: DeadlineList): void {
    const head = list.head!;
    list.armedFor = head.at;
    list.timer = setTimeout(() => this.sweep(list), Math.max(1, head.at - performance.now()));
    if (!this.keepAlive) list.timer.unref();
  }

  private sweep(list: DeadlineList): void {
    list.timer = undefined;
    const now = Math.max(performance.now(), list.armedFor);
    let failure: { err: unknown } | undefined;
    while (list.head && list.head.at <= now) {
      const entry = list.head;
      this.remove(entry);
      try {
        entry.expire();
      } catch (err) {
        failure ??= { err };
      }
    }
    // An expiry may have added an entry back to this list, which armed its timer already.
    if (list.head) {
      if (!list.timer) this.arm(list);
    } else this.lists.delete(list.key);
    // An expiry that threw fails as a timer callback would, once the others have run.
    if (failure) throw failure.err;
  }
}
