// A set of field paths, the unit of ownership in server-side apply, stored as a trie whose
// edges are serialized path elements: `f:<field>`, `k:<json key fields>`, `v:<json value>`,
// `i:<index>`. `members` are the paths that end at this node's children; `children` hold deeper
// paths. FieldsV1 (metav1.FieldsV1) is the JSON form of this trie, "." marking a member that
// also has children.

export type PathElement = string;
export type FieldPathElements = readonly PathElement[];

export class FieldSetError extends Error {
  override name = 'FieldSetError';
}

const TYPE_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** kube's order of path elements: fields, then keys, values and indexes; each by content. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = TYPE_RANK[a[0]!] ?? 4;
  const rb = TYPE_RANK[b[0]!] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: FieldPathElements[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPathElements): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      let child = node.children.get(path[i]!);
      if (!child) node.children.set(path[i]!, (child = new FieldSet()));
      node = child;
    }
    node.members.add(path[path.length - 1]!);
  }

  has(path: FieldPathElements): boolean {
    // An empty path has no last element: undefined, which no set holds.
    return this.nodeAt(path.slice(0, -1))?.members.has(path[path.length - 1]!) ?? false;
  }

  /** The subtree below `path` (paths relative to it), if any. */
  nodeAt(path: FieldPathElements): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const pe of path) {
      node = node.children.get(pe);
      if (!node) return undefined;
    }
    return node;
  }

  isEmpty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(other);
    return out;
  }

  /** Adds `other`'s paths to this set, in place (`union` leaves both as they are). */
  addAll(other: FieldSet): void {
    for (const m of other.members) this.members.add(m);
    for (const [pe, c] of other.children) {
      const mine = this.children.get(pe);
      if (mine) mine.addAll(c);
      else this.children.set(pe, c.clone());
    }
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      const d = o ? c.difference(o) : c.clone();
      if (!d.isEmpty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (!o) continue;
      const i = c.intersection(o);
      if (!i.isEmpty()) out.children.set(pe, i);
    }
    return out;
  }

  /** Removes every path equal to or below one of `prefixes` (kube's exclude filter). */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!prefixes.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (prefixes.members.has(pe)) continue;
      const p = prefixes.children.get(pe);
      const kept = p ? c.withoutPrefixes(p) : c.clone();
      if (!kept.isEmpty()) out.children.set(pe, kept);
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.clone());
    return out;
  }

  /** Every member path, in kube's order. */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = [];
    const keys = new Set([...this.members, ...this.children.keys()]);
    for (const pe of [...keys].sort(comparePathElements)) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const c = this.children.get(pe);
      if (c) out.push(...c.paths([...prefix, pe]));
    }
    return out;
  }

  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (includeSelf) out['.'] = {};
    // Members and children's edges, each once, in kube's order (every write encodes its entries).
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements);
    for (const pe of keys) {
      const c = this.children.get(pe);
      if (c && !c.isEmpty()) out[pe] = c.emit(this.members.has(pe));
      else out[pe] = {};
    }
    return out;
  }

  /** Parses FieldsV1; throws FieldSetError on anything that is not a well-formed trie. */
  static fromFieldsV1(json: unknown): FieldSet {
    const out = new FieldSet();
    out.parse(json);
    return out;
  }

  private parse(json: unknown): void {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new FieldSetError('FieldsV1 must be a JSON object');
    for (const [key, sub] of Object.entries(json as Record<string, unknown>)) {
      if (key === '.') continue;
      checkPathElement(key);
      if (typeof sub !== 'object' || sub === null || Array.isArray(sub)) throw new FieldSetError(`FieldsV1 entry ${key} must be an object`);
      const entries = Object.keys(sub);
      if (entries.length === 0) {
        this.members.add(key);
        continue;
      }
      if (entries.includes('.')) this.members.add(key);
      const child = new FieldSet();
      child.parse(sub);
      if (!child.isEmpty()) this.children.set(key, child);
    }
  }
}

function checkPathElement(pe: string): void {
  if (pe.length < 2 || pe[1] !== ':' || !(pe[0]! in TYPE_RANK)) throw new FieldSetError(`unknown path element type: ${pe}`);
  const body = pe.slice(2);
  if (pe[0] === 'i' && !/^\d+$/.test(body)) throw new FieldSetError(`invalid index path element: ${pe}`);
  if (pe[0] === 'k' || pe[0] === 'v') {
    try {
      const v: unknown = JSON.parse(body);
      if (pe[0] === 'k' && (typeof v !== 'object' || v === null || Array.isArray(v))) throw new Error('not an object');
    } catch {
      throw new FieldSetError(`invalid path element: ${pe}`);
    }
  }
}

/** structured-merge-diff prints a key or set value with value.ToString: strings quoted, numbers, booleans and null as JSON has them. */
const valueText = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** kube's text form of a path, as in conflict messages: `.spec.cidrs`, `.status.conditions[type="Ready"]`. */
export function formatPath(path: FieldPathElements): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k':
          return `[${Object.entries(JSON.parse(body) as Record<string, unknown>).map(([k, v]) => `${k}=${valueText(v)}`).join(',')}]`;
        case 'v':
          return `[=${valueText(JSON.parse(body))}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
