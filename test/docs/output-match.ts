// The loose match between what a page shows a command prints and what it printed
// (docs/docs-tests.md): exact, except for the parts that differ from run to run.
//
// - Trailing blanks and blank lines before and after are ignored; a run of blanks inside a line
//   matches any run of blanks (kubectl sizes its columns to their contents).
// - `…` matches any text within a line; a line that is only `…` matches any number of lines.
// - `127.0.0.1:6443` matches 127.0.0.1 on any port (the harness's server listens on a free one).
// - `/path/to/` matches any absolute directory (the test's temp dirs); `XXXX` (four or more X)
//   any run of letters and digits (a temp dir's random suffix).
// - A duration on its own (`5s`, `2m3s`, `10m`, `4d`: kubectl's ages) matches any duration; an
//   RFC 3339 time (`2026-11-25T14:46:38Z`) any such time; a UUID any UUID.

const PARTS =
  /(…)|([ \t]+)|(127\.0\.0\.1:6443)|(\/path\/to\/)|(X{4,})|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})|((?<!\S)\d+(?:ms|s|m|h|d|y)(?:\d+(?:s|m|h|d))?(?!\S))/g;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** One shown line as a regular expression for one printed line. */
export function linePattern(shown: string): RegExp {
  let source = '';
  let at = 0;
  const line = shown.trimEnd();
  for (const m of line.matchAll(PARTS)) {
    source += escape(line.slice(at, m.index));
    at = m.index! + m[0].length;
    if (m[1]) source += '.*';
    else if (m[2]) source += '[ \\t]+';
    else if (m[3]) source += '127\\.0\\.0\\.1:\\d+';
    else if (m[4]) source += '/(?:[^\\s/]+/)*';
    else if (m[5]) source += '[A-Za-z0-9]+';
    else if (m[6]) source += '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z';
    else if (m[7]) source += '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
    else source += '\\d+[a-z]+(?:\\d+[a-z]+)?';
  }
  source += escape(line.slice(at));
  return new RegExp(`^${source}$`);
}

const trimmedLines = (text: string): string[] => {
  const lines = text.replace(/\r\n/g, '\n').split('\n').map((l) => l.trimEnd());
  while (lines.length && lines[0] === '') lines.shift();
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** Whether `printed` is what `shown` shows, by the rules above. */
export function matchesShown(shown: string, printed: string): boolean {
  const want = trimmedLines(shown).map((l) => (l.trim() === '…' ? 'gap' : linePattern(l)));
  const got = trimmedLines(printed);
  // A dynamic programme over (shown line, printed line): a gap takes zero or more printed lines.
  const memo = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (got.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let ok: boolean;
    if (i === want.length) ok = j === got.length;
    else if (want[i] === 'gap') ok = from(i + 1, j) || (j < got.length && from(i, j + 1));
    else ok = j < got.length && (want[i] as RegExp).test(got[j]!) && from(i + 1, j + 1);
    memo.set(key, ok);
    return ok;
  };
  return from(0, 0);
}

/** A failure message: both texts, and the first shown line no printed line matches. */
export function mismatch(shown: string, printed: string): string {
  const got = trimmedLines(printed);
  const missing = trimmedLines(shown).find((l) => l.trim() !== '…' && !got.some((g) => linePattern(l).test(g)));
  return [
    'the page shows:',
    ...trimmedLines(shown).map((l) => `  | ${l}`),
    'the command printed:',
    ...got.map((l) => `  | ${l}`),
    missing === undefined ? '(every shown line is printed, but not in this order or with other lines between)' : `no printed line matches: ${missing}`,
  ].join('\n');
}
