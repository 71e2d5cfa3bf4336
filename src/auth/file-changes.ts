// How the auth layer hears that a file it re-reads may have changed, without watching files
// itself: the composition root owns file watching (src/config/file-follow.ts) and injects it.

/**
 * Tells `onChange` when the file may have changed (a spurious call is harmless: contents decide);
 * `close` stops the calls.
 */
export type FileChanges = (onChange: () => void) => { close(): void };
