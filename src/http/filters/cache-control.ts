// Every answer of the request path says `Cache-Control: no-cache, private` unless its handler
// says otherwise (kube's WithCacheControl): everything here sits behind authentication, so no
// shared cache may keep it, and a private one must revalidate. Set before authentication, so
// refusals carry it too; a handler that allows caching (hashed OpenAPI documents) replaces it.

import { filter } from './filter.js';

export const cacheControlFilter = filter({
  enter(s) {
    s.reply.header('Cache-Control', 'no-cache, private');
  },
});
