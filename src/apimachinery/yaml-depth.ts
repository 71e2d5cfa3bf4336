// A bound on how deep a YAML text nests, found by a linear scan before any parser sees it. The
// yaml package composes nested collections recursively, so a body nested a few thousand levels
// (`- - - … 1` on one line, or a block mapping indented once more per line) could exhaust the
// stack, and whether it did depended on how deep the stack already was and how V8 had compiled
// the parser's frames: sometimes a 400, sometimes a RangeError. A text whose bound is past the
// limit is refused here, the same way every time. The bound may overestimate (a plain scalar's
// continuation line counts as a level, quoted text spanning lines is scanned as structure), never
// underestimate, so only texts far deeper than any object of ours are refused.

/** Whether block nesting plus flow (bracket) nesting may exceed `max` levels. */
export function yamlDepthExceeds(text: string, max: number): boolean {
  const block = blockDepth(text, max);
  if (block > max) return true;
  const flow = flowDepth(text, max - block);
  return flow > max - block;
}

/**
 * The deepest block nesting, counted from indentation: a stack of the columns of the nodes open
 * at each line (a node at a greater column nests in the one above; a sequence at the same column
 * as a mapping key nests in it, as YAML allows), each leading `- ` or `? ` of a line being one
 * more level at its own column. Lines of a block scalar (`|`, `>`) are text, skipped. Stops as
 * soon as the depth passes `max`.
 */
function blockDepth(text: string, max: number): number {
  const cols: number[] = [];
  const seqs: boolean[] = [];
  let deepest = 0;
  let scalarParent = -1;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let n = start;
    while (n < end && text.charCodeAt(n) === 0x20) n++;
    const indent = n - start;
    const first = text[n];
    const blank = n >= end || first === '#' || first === '\r';
    if (blank || (scalarParent >= 0 && indent > scalarParent)) {
      start = end + 1;
      continue;
    }
    scalarParent = -1;
    if (indent === 0 && (text.startsWith('---', n) || text.startsWith('...', n))) {
      cols.length = 0;
      seqs.length = 0;
      start = end + 1;
      continue;
    }
    // The line's nodes: each leading indicator, then what follows (a key or a scalar).
    let pos = n;
    let placed = false;
    const place = (col: number, seq: boolean): void => {
      if (!placed) {
        // Close what this line is not inside of (a sequence under a key may share its column).
        while (cols.length && (cols[cols.length - 1]! > col || (cols[cols.length - 1] === col && !(seq && !seqs[seqs.length - 1])))) {
          cols.pop();
          seqs.pop();
        }
        placed = true;
      }
      cols.push(col);
      seqs.push(seq);
    };
    while ((text[pos] === '-' || text[pos] === '?') && (pos + 1 >= end || text[pos + 1] === ' ' || text[pos + 1] === '\r')) {
      place(pos - start, true);
      if (cols.length > max) return cols.length;
      pos++;
      while (pos < end && text.charCodeAt(pos) === 0x20) pos++;
    }
    if (pos < end && text[pos] !== '#' && text[pos] !== '\r') place(pos - start, false);
    deepest = Math.max(deepest, cols.length);
    if (deepest > max) return deepest;
    // `key: |`, `- >-`, `key: |2 # comment`: the lines indented past this one are the scalar's text.
    if (endsWithBlockScalarHeader(text, pos, end)) scalarParent = indent;
    start = end + 1;
  }
  return deepest;
}

/**
 * Whether the line [from, end) ends with a block scalar header (`|` or `>`, then chomping and
 * indentation indicators, then spaces and perhaps a comment) after a space, `:` or `-` or at its
 * start. Char by char, not a regular expression: V8 compiles a regular expression on first use,
 * and compiling one on a nearly exhausted stack aborts the process.
 */
function endsWithBlockScalarHeader(text: string, from: number, end: number): boolean {
  let e = end;
  if (e > from && text[e - 1] === '\r') e--;
  // The comment is looked for within the line only: searching on past its end made the scan
  // O(lines × bytes), minutes for a few megabytes of short lines.
  for (let i = from; i + 1 < e; i++) {
    if (text.charCodeAt(i) === 0x20 && text.charCodeAt(i + 1) === 0x23) {
      e = i;
      break;
    }
  }
  while (e > from && (text[e - 1] === ' ' || text[e - 1] === '\t')) e--;
  while (e > from && (text[e - 1] === '-' || text[e - 1] === '+' || (text[e - 1]! >= '0' && text[e - 1]! <= '9'))) e--;
  if (e <= from || (text[e - 1] !== '|' && text[e - 1] !== '>')) return false;
  const before = e - 2;
  return before < from || text[before] === ' ' || text[before] === ':' || text[before] === '-';
}

const TOKEN_BOUNDARY = new Set([' ', '\t', '\n', '\r', '[', '{', ',', ':', '?', '-']);

/**
 * The deepest flow nesting (`[`, `{`), skipping quoted scalars and comments. It may count
 * brackets inside plain or block scalars too, which only makes the bound larger. Stops as soon as
 * the depth passes `max`.
 */
function flowDepth(text: string, max: number): number {
  let depth = 0;
  let deepest = 0;
  const startsToken = (i: number): boolean => i === 0 || TOKEN_BOUNDARY.has(text[i - 1]!);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '[' || c === '{') {
      if (++depth > max) return depth;
      deepest = Math.max(deepest, depth);
    } else if (c === ']' || c === '}') {
      if (depth > 0) depth--;
    } else if (c === '#' && startsToken(i)) {
      const end = text.indexOf('\n', i);
      if (end < 0) return deepest;
      i = end;
    } else if ((c === '"' || c === "'") && startsToken(i)) {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += c === '"' && text[j] === '\\' ? 2 : 1;
      // A single-quoted scalar writes its quote twice; going on from the second one is the same.
      i = j;
    }
  }
  return deepest;
}
