// A first-in first-out list with O(1) push and shift: an array read from a moving head, compacted
// once the consumed part is at least half of it, so each item is copied at most once on average.
// Array.prototype.shift moves every remaining item: O(n) per item, O(n²) over a queue of
// 100,000 keys (a restart's first pass).

export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  /** Items moved by compaction since the list was made (what makes it O(1) amortized: at most one per item pushed). */
  moved = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    // The slot no longer holds the item: nothing consumed is kept alive.
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.moved += this.items.length - this.head;
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const out = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return out;
  }
}
