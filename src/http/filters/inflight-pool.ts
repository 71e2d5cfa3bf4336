// A pool of in-flight seats for one kind of request (read-only or mutating), with a per-user
// share: once the pool is half used, a user already holding half of it gets no more, so one
// noisy client cannot take every seat from the others (the fairness part of kube's priority and
// fairness, without its queues: past the limit a request is refused at once, never queued).
// A request takes one seat or more: a list of many objects is wider work (work-estimate.ts).

export class InflightPool {
  private used = 0;
  private readonly byUser = new Map<string, number>();
  /** The most seats one user may hold while others could want them. */
  readonly share: number;

  constructor(readonly limit: number) {
    this.share = Math.max(1, Math.ceil(limit / 2));
  }

  get inUse(): number {
    return this.used;
  }

  /**
   * The seats a request of this width takes: never more than one user's share, so that a wide
   * request still fits an idle pool (a small --max-requests-inflight must not refuse every list).
   */
  seatsFor(width: number): number {
    return Math.max(1, Math.min(Math.floor(width), this.share));
  }

  /** Takes `seats` (from seatsFor) for `user`; false when the request must be refused. */
  tryAcquire(user: string, seats = 1): boolean {
    if (this.used + seats > this.limit) return false;
    const mine = this.byUser.get(user) ?? 0;
    if (mine + seats > this.share && this.used + seats > this.share) return false;
    this.used += seats;
    this.byUser.set(user, mine + seats);
    return true;
  }

  release(user: string, seats = 1): void {
    this.used -= seats;
    const mine = (this.byUser.get(user) ?? seats) - seats;
    if (mine <= 0) this.byUser.delete(user);
    else this.byUser.set(user, mine);
  }
}
