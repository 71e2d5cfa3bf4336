// The one error a migration reports: a sentence for the operator, on one line (the command prints
// it as `platform-apiserver migrate: <message>` and exits non-zero). Usage mistakes are their own
// kind (exit 2, as commander's).

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A message on one line: gRPC and SQLite errors carry newlines and trailing notes. */
export const oneLine = (text: string): string =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export const errorText = (err: unknown): string => oneLine(err instanceof Error ? err.message : String(err));
