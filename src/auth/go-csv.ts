// The records of a CSV file as Go's encoding/csv reads them with kube's settings (a csv.Reader
// with FieldsPerRecord -1): commas only, no comment lines, nothing trimmed, quotes only around a
// whole field ("" inside for one), quoted fields may span lines, CRLF read as LF, empty lines
// skipped. kube-apiserver reads --token-auth-file this way, so a file it refuses is refused here
// with Go's words, and one it accepts gives the same fields.
//
// The input is the file's bytes as a latin1 string (one character per byte): Go counts columns in
// bytes, and a field's bytes are kept as they are for the caller to decode.

export class CsvParseError extends Error {
  override name = 'CsvParseError';
}

const BARE_QUOTE = 'bare " in non-quoted-field';
const BAD_QUOTE = 'extraneous or missing " in quoted-field';

/** Go's ParseError text: the record's first line is named only when the error is on a later one. */
function parseError(recordLine: number, line: number, column: number, what: string): CsvParseError {
  const at = `parse error on line ${line}, column ${column}: ${what}`;
  return new CsvParseError(recordLine === line ? at : `record on line ${recordLine}; ${at}`);
}

/** The input's lines, each with its "\n" (CRLF made LF; a lone CR before the end dropped, as Go does). */
function splitLines(bytes: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf('\n', start);
    let line = nl < 0 ? bytes.slice(start) : bytes.slice(start, nl + 1);
    start = nl < 0 ? bytes.length : nl + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1); // only the last line, without "\n", can end so
    if (line.endsWith('\r\n')) line = `${line.slice(0, -2)}\n`;
    lines.push(line);
  }
  return lines;
}

/** How many of the line's last characters are its newline (0 or 1). */
const newlineLength = (s: string): number => (s.endsWith('\n') ? 1 : 0);

/** Every record of the input, in order; throws CsvParseError at the first malformed one. */
export function readCsvRecords(bytes: string): string[][] {
  const lines = splitLines(bytes);
  const records: string[][] = [];
  let next = 0; // the index of the next line to read
  while (next < lines.length) {
    let line = lines[next++]!;
    if (line.length === newlineLength(line)) continue; // an empty line is no record
    const recordLine = next;
    let lineNumber = next;
    let column = 1;
    const fields: string[] = [];
    for (;;) {
      if (!line.startsWith('"')) {
        const comma = line.indexOf(',');
        const field = comma >= 0 ? line.slice(0, comma) : line.slice(0, line.length - newlineLength(line));
        if (field.includes('"')) throw parseError(recordLine, lineNumber, column + field.indexOf('"'), BARE_QUOTE);
        fields.push(field);
        if (comma < 0) break;
        line = line.slice(comma + 1);
        column += comma + 1;
        continue;
      }
      // A quoted field: up to the quote that is followed by a comma, the line's end or the input's.
      line = line.slice(1);
      column += 1;
      let field = '';
      let fieldDone = false;
      let recordDone = false;
      while (!fieldDone) {
        const quote = line.indexOf('"');
        if (quote >= 0) {
          field += line.slice(0, quote);
          line = line.slice(quote + 1);
          column += quote + 1;
          if (line.startsWith('"')) {
            field += '"';
            line = line.slice(1);
            column += 1;
          } else if (line.startsWith(',')) {
            line = line.slice(1);
            column += 1;
            fieldDone = true;
          } else if (line.length === newlineLength(line)) {
            fieldDone = recordDone = true;
          } else {
            throw parseError(recordLine, lineNumber, column - 1, BAD_QUOTE);
          }
        } else if (line.length > 0) {
          // The field goes on past this line (its newline is part of the field).
          field += line;
          column += line.length;
          if (next < lines.length) {
            line = lines[next++]!;
            lineNumber += 1;
            column = 1;
          } else line = '';
        } else {
          throw parseError(recordLine, lineNumber, column, BAD_QUOTE); // the input ended inside quotes
        }
      }
      fields.push(field);
      if (recordDone) break;
    }
    records.push(fields);
  }
  return records;
}
