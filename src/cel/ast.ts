// The expression tree the checker and evaluator work on: @bufbuild/cel's parsed expression,
// converted once into plain objects (optional syntax and two-variable macros resolved).

import type { CelValue } from './values.js';

interface Node {
  readonly id: number;
}

export type Expr =
  | (Node & { readonly kind: 'const'; readonly value: CelValue })
  | (Node & { readonly kind: 'ident'; readonly name: string })
  /** `a.f`; `test`: has(a.f); `optional`: a.?f. */
  | (Node & { readonly kind: 'select'; readonly operand: Expr; readonly field: string; readonly test: boolean; readonly optional: boolean })
  | (Node & { readonly kind: 'call'; readonly fn: string; readonly target?: Expr; readonly args: readonly Expr[] })
  | (Node & { readonly kind: 'list'; readonly elems: readonly Expr[]; readonly optional: readonly boolean[] })
  | (Node & { readonly kind: 'map'; readonly entries: readonly MapEntry[] })
  | (Node & {
      readonly kind: 'comprehension';
      readonly iterVar: string;
      /** Set for two-variable comprehensions (index or key, then value). */
      readonly iterVar2?: string;
      readonly range: Expr;
      readonly accuVar: string;
      readonly init: Expr;
      readonly cond: Expr;
      readonly step: Expr;
      readonly result: Expr;
    })
  /** A local binding (optMap/optFlatMap): `body` with `name` bound to `init`. */
  | (Node & { readonly kind: 'bind'; readonly name: string; readonly init: Expr; readonly body: Expr });

export interface MapEntry {
  readonly key: Expr;
  readonly value: Expr;
  readonly optional: boolean;
}

/** A parsed expression with where each node starts in the source. */
export interface ParsedExpr {
  readonly source: string;
  readonly root: Expr;
  /** Node id → offset (UTF-16 index) in `source`. */
  readonly offsets: ReadonlyMap<number, number>;
}
