// Metric series kept in our own plain objects and read by prom-client only when /metrics is
// scraped. prom-client's own inc/observe validate and hash the label set on every call; on the
// request path (several observations per request) that is measurable, while a scrape is rare.
// Each series is found once per request (by whoever owns the key) and updated with additions.
// The exposition is what prom-client's Counter and Histogram would print for the same
// observations: the same names, help, label order, bucket bounds, series order (first
// observation first) and floating-point sums (added in the same order).

import { Counter, Histogram, type Registry } from 'prom-client';

/** One counter series. */
export interface CounterCell<L> {
  readonly labels: L;
  value: number;
  /** What prom-client was last given (collect adds the difference). */
  synced: number;
  /** Whether prom-client has the series (a cell made ahead shows 0 before any observation). */
  exported: boolean;
}

/** One histogram series: per-bound counts (not cumulative), the sum and count of observations. */
export interface HistogramCell<L> {
  readonly labels: L;
  readonly buckets: number[];
  sum: number;
  count: number;
}

type Labels = Record<string, string>;
/** One line of the exposition, as prom-client's Histogram describes it (`exemplar` null on buckets). */
interface SnapshotValue {
  labels: Labels;
  sharedLabels: Labels;
  value: number;
  metricName: string;
  exemplar?: null;
}

/** A counter whose series live in `cells` (in order of first observation); prom-client is told at collect time. */
export function collectedCounter<T extends string>(registry: Registry, name: string, help: string, labelNames: readonly T[], cells: readonly CounterCell<Record<T, string>>[]): Counter<T> {
  return new Counter<T>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const c of cells) {
        if (c.value === c.synced && c.exported) continue;
        this.inc(c.labels, c.value - c.synced);
        c.synced = c.value;
        c.exported = true;
      }
    },
  });
}

export const newCounterCell = <L>(labels: L): CounterCell<L> => ({ labels, value: 0, synced: 0, exported: false });

/**
 * A histogram whose series live in `cells` (in order of first observation). prom-client has no
 * way to add a count to a bucket, so this one answers prom-client's read of its values itself,
 * in the form prom-client's Histogram gives (each bucket cumulative, then +Inf, _sum, _count).
 */
export class CollectedHistogram<T extends string> extends Histogram<T> {
  readonly bounds: readonly number[];
  private readonly familyName: string;
  private readonly familyHelp: string;

  constructor(
    config: { name: string; help: string; labelNames: readonly T[]; buckets: readonly number[]; registers: Registry[] },
    private readonly cells: readonly HistogramCell<Record<T, string>>[],
  ) {
    super({ ...config, buckets: [...config.buckets] });
    this.bounds = [...config.buckets];
    this.familyName = config.name;
    this.familyHelp = config.help;
  }

  newCell(labels: Record<T, string>): HistogramCell<Record<T, string>> {
    return { labels, buckets: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 };
  }

  /** Adds one observation to `cell` (as prom-client's observe: the first bound it fits, else only +Inf). */
  observeIn(cell: HistogramCell<Record<T, string>>, value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        cell.buckets[i]!++;
        break;
      }
    }
    cell.sum += value;
    cell.count++;
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<T>['get']>>> {
    // prom-client's get() moves the shared labels after `le` into one label set.
    const data = this.snapshot();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values } as unknown as Awaited<ReturnType<Histogram<T>['get']>>;
  }

  /** What the registry reads when it renders the text format (prom-client's own form: `le` first, then the series' labels). */
  async getForPromString(): Promise<unknown> {
    return this.snapshot();
  }

  private snapshot(): { name: string; help: string; type: string; values: SnapshotValue[]; aggregator: string } {
    const bucketName = `${this.familyName}_bucket`;
    const values: SnapshotValue[] = [];
    const none: Labels = {};
    for (const c of this.cells) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += c.buckets[i]!;
        values.push({ labels: { le: this.bounds[i] as unknown as string }, sharedLabels: c.labels, value: acc, metricName: bucketName, exemplar: null });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: c.labels, value: c.count, metricName: bucketName, exemplar: null });
      values.push({ labels: none, sharedLabels: c.labels, value: c.sum, metricName: `${this.familyName}_sum` });
      values.push({ labels: none, sharedLabels: c.labels, value: c.count, metricName: `${this.familyName}_count` });
    }
    return { name: this.familyName, help: this.familyHelp, type: 'histogram', values, aggregator: (this as unknown as { aggregator: string }).aggregator };
  }
}
