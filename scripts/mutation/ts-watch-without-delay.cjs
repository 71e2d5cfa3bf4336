// Preloaded into Stryker's TypeScript checker processes (checkerNodeArgs in run.ts). The checker
// type-checks each mutant through TypeScript's watch builder, which waits 250 ms after a file
// changes before it rebuilds, to gather an editor's keystrokes. The checker makes exactly one
// change per check and then waits for that rebuild, so the delay is pure idle time: thousands of
// checks, minutes of a run. This rebuilds at once. Only the watch's timers use ts.sys.setTimeout.
'use strict';
const ts = require('typescript');
const schedule = ts.sys.setTimeout;
ts.sys.setTimeout = (callback, _ms, ...args) => schedule(callback, 0, ...args);
