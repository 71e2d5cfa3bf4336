// A pool of in-flight slots for one kind of request (read-only or mutating), with a per-user
// share: once the pool is half used, a user already holding half of it gets no more, so one
// noisy client cannot take every slot from the others (the fairness part of kube's priority and
// fairness, without its queues: past the limit a request is refused at once, never queued).

export class InflightPool {
  private used = 0;
  private readonly byUser = new Map<string, number>();
  /** The most slots one user may hold while others could want them. */
  readonly share: number;

  constructor(readonly limit: number) {
    this.share = Math.max(1, Math.ceil(limit / 2));
  }

  get inUse(): number {
    return this.used;
  }

  /** Takes a slot for `user`; false when the request must be refused. */
  tryAcquire(user: string): boolean {
    if (this.used >= this.limit) return false;
    const mine = this.byUser.get(user) ?? 0;
    if (mine >= this.share && this.used >= this.share) return false;
    this.used++;
    this.byUser.set(user, mine + 1);
    return true;
  }

  release(user: string): void {
    this.used--;
    const mine = (this.byUser.get(user) ?? 1) - 1;
    if (mine <= 0) this.byUser.delete(user);
    else this.byUser.set(user, mine);
  }
}
