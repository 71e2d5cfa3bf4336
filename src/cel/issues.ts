// Compile-time problems reported as cel-go reports them: `ERROR: <input>:line:column: message`
// followed by the source line and a caret under the column, sorted by position.

export interface Issue {
  /** Offset (UTF-16 index) in the source; the column shown counts code points, as Go counts runes. */
  readonly offset: number;
  readonly message: string;
}

export class CelIssues extends Error {
  override name = 'CelIssues';
  constructor(
    readonly issues: readonly Issue[],
    readonly source: string,
  ) {
    super(formatIssues(source, issues));
  }
}

function location(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, Math.max(0, Math.min(offset, source.length)));
  const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
  const line = before.split(/\r\n|\r|\n/).length;
  const lineEnd = source.slice(lineStart).search(/[\r\n]/);
  const text = lineEnd < 0 ? source.slice(lineStart) : source.slice(lineStart, lineStart + lineEnd);
  const column = Array.from(before.slice(lineStart)).length;
  return { line, column, text };
}

export function formatIssues(source: string, issues: readonly Issue[]): string {
  const sorted = [...issues].sort((a, b) => a.offset - b.offset);
  return sorted
    .map((issue) => {
      const { line, column, text } = location(source, issue.offset);
      const snippet = text.replace(/\t/g, ' ');
      return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${snippet}\n | ${'.'.repeat(Math.min(column, Array.from(snippet).length))}^`;
    })
    .join('\n');
}
