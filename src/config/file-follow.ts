// Noticing that files given on the command line changed, for the material that is re-read without
// a restart (serving certificate and key, client CA, OIDC CA, --authentication-config,
// --authorization-config): the one mechanism for all of them. fs.watch on the files' directories
// sees a Kubernetes secret or ConfigMap volume swap its `..data` symlink (an atomic rename in
// that directory, which a watch on the file itself would miss); a bounded periodic call covers
// file systems that report nothing. Bursts of events are coalesced. The caller compares contents
// (timestamps survive a symlink swap unchanged), so a spurious call is harmless.

import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

/** Events within this window make one call. */
const DEBOUNCE_MS = 100;
/** The periodic check, for file systems whose changes fs.watch does not see. */
export const DEFAULT_POLL_MS = 5000;

export interface FollowedFiles {
  close(): void;
}

/** Calls `onChange` soon after anything in the files' directories changes, and every `pollMs`. */
export function followFiles(o: { paths: readonly string[]; onChange: () => void; pollMs?: number }): FollowedFiles {
  let timer: NodeJS.Timeout | undefined;
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(o.onChange, DEBOUNCE_MS);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const dir of new Set(o.paths.map((p) => dirname(p)))) {
    try {
      const w = watch(dir, { persistent: false }, soon);
      w.on('error', () => w.close()); // the directory went away: the periodic check still runs
      watchers.push(w);
    } catch {
      // Not watchable here: the periodic check alone notices changes.
    }
  }
  const poll = setInterval(o.onChange, o.pollMs ?? DEFAULT_POLL_MS);
  poll.unref();
  return {
    close() {
      clearInterval(poll);
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
