// Storage's name for the one retry backoff (apimachinery/backoff.ts), so backends and the watch
// cache import it from their own layer; the implementation lives in apimachinery, shared with
// the controllers.

export { backoffDelay, backoffStep, DEFAULT_BACKOFF, type BackoffOptions } from '../apimachinery/backoff.js';
