// GET <collection>?watch=true: a chunked stream of {"type","object"} lines, one per event,
// flushed per event (written by WatchStream). Errors before the stream starts are ordinary
// Status responses; later ones are an ERROR event, then the stream ends. Bookmarks only when
// asked for.

import type { KubeObject } from '../../../apimachinery/object-meta.js';
import { parseFieldSelector } from '../../../apimachinery/field-selector.js';
import { badRequest, notAcceptable } from '../../../apimachinery/status-error.js';
import { buildTable, type IncludeObject, type TableColumnSource } from '../../../apimachinery/table.js';
import { servedJsonOf } from '../../../registry/object-codec.js';
import { apiVersionOf, type ResourceDefinition } from '../../../registry/resource-definition.js';
import type { WatchQuery } from '../../../registry/rest-storage.js';
import { header, type HandlerInput } from '../endpoint.js';
import { negotiateResponse } from '../negotiation.js';
import { listQuery, tableIncludeObject } from '../query-options.js';
import { queryBool, queryInt64 } from '../query-values.js';
import { lowerSocketHighWaterMark, WatchStream } from '../watch-stream.js';

/**
 * JSON lines per shared event object and type: serialized and UTF-8 encoded once for every
 * watcher of the event (a Buffer, so a thousand streams do not each convert the string). The
 * object's part is the stored version's JSON that GET and list send too (servedJsonOf), when
 * the object is a shared one: `JSON.stringify({ type, object })` byte for byte.
 */
const encodedLines = new WeakMap<object, Map<string, Buffer>>();
const LINE_END = Buffer.from('}\n');

/** The last line asked for: a fan-out asks for one event's line once per watcher, in a row. */
let lastObject: KubeObject | undefined;
let lastType = '';
let lastLine: Buffer | undefined;

function jsonLine(type: string, obj: KubeObject): Buffer {
  if (obj === lastObject && type === lastType) return lastLine!;
  const line = cachedJsonLine(type, obj);
  lastObject = obj;
  lastType = type;
  lastLine = line;
  return line;
}

function cachedJsonLine(type: string, obj: KubeObject): Buffer {
  let byType = encodedLines.get(obj);
  if (!byType) encodedLines.set(obj, (byType = new Map()));
  let line = byType.get(type);
  if (line === undefined) {
    const served = servedJsonOf(obj);
    line = served
      ? Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), served.subarray(0, served.length - 1), LINE_END])
      : Buffer.from(`${JSON.stringify({ type, object: obj })}\n`);
    byType.set(type, line);
  }
  return line;
}

const MIN_WATCH_MINUTES = 30;
/** Node's timers fire at once past 2^31 - 1 ms (about 24.8 days): a longer timeoutSeconds is that. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function watchQuery(query: URLSearchParams, name: string): WatchQuery {
  const q: WatchQuery = listQuery(query);
  q.allowWatchBookmarks = queryBool(query, 'allowWatchBookmarks');
  // A watch of one object by its path (`…/<name>?watch=true`, `…/watch/<resource>/<name>`) is a
  // watch with that name's field selector, as in kube; a selector naming another is a 400.
  if (name) {
    const fields = parseFieldSelector(q.fieldSelector);
    if (fields.empty) q.fieldSelector = `metadata.name=${name.replace(/[\\,=]/g, '\\$&')}`;
    else if (fields.exactValue('metadata.name') !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  return q;
}

export async function handleWatch(input: HandlerInput): Promise<void> {
  const format = negotiateResponse(header(input.req, 'accept'), true);
  if (format.kind === 'yaml') throw notAcceptable('only the following media types are accepted for watch: application/json');
  const query = watchQuery(input.query, input.name);
  // Checked before the watch starts: a bad one is a 400, not a stream ended at once.
  const includeObject = format.kind === 'table' ? tableIncludeObject(input.query) : 'Metadata';
  const timeoutSeconds = queryInt64(input.query, 'timeoutSeconds') ?? 0;
  // WatchStream ends it (stop()) with the response, the lifetime or the server.
  const watch = await input.storage.watch(input.ctx, query);

  const res = input.reply.raw;
  // The request id (randomUUID) is a rope of a dozen short strings, as Node builds it: reading
  // a character flattens it in place (the collector then keeps only the flat string), so the
  // watch's headers, logger and audit trail do not hold ~400 bytes of rope for the watch's life.
  input.ctx.requestId.charCodeAt(0);
  try {
    input.reply.hijack();
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      ...(input.req.raw.httpVersionMajor === 1 ? { 'Transfer-Encoding': 'chunked' } : {}),
      'Audit-Id': input.ctx.requestId,
    });
    // Send the headers now: a watch with nothing to report yet must still answer 200 at once.
    res.flushHeaders();
  } catch (err) {
    watch.stop();
    throw err;
  }
  // 'on': a response closes once, and a 'once' wrapper would be kept for the watch's life.
  if (input.req.raw.httpVersionMajor === 1) res.on('close', lowerSocketHighWaterMark(input.req.raw.socket));
  new WatchStream(res, watch, {
    encode: format.kind === 'table' ? tableEncoder(input, format.apiVersion, includeObject) : jsonLine,
    bookmark: query.allowWatchBookmarks ? bookmarkEncoder(input.definition) : undefined,
    // kube: 0 (or none) is the server's random lifetime; a negative one ends the watch at once.
    lifetimeMs: timeoutSeconds !== 0 ? Math.min(Math.max(timeoutSeconds, 0) * 1000, MAX_TIMER_MS) : watchLifetimeMs(),
    serverClosing: input.serverClosing,
    logger: input.ctx.logger,
  });
}

/**
 * Without timeoutSeconds a watch lives 30–60 minutes, like kube-apiserver's; in whole minutes,
 * so that watches share Node's per-duration timer lists.
 */
const watchLifetimeMs = (): number => (MIN_WATCH_MINUTES + Math.floor(Math.random() * MIN_WATCH_MINUTES)) * 60_000;

type BookmarkEncoder = (resourceVersion: string, initialEventsEnd: boolean) => string;

/** One encoder per resource, shared by its watches (an informer's watch always asks for bookmarks). */
const bookmarkEncoders = new WeakMap<ResourceDefinition, BookmarkEncoder>();

function bookmarkEncoder(def: ResourceDefinition): BookmarkEncoder {
  let encode = bookmarkEncoders.get(def);
  if (encode) return encode;
  const kind = def.kind;
  const apiVersion = apiVersionOf(def);
  encode = (resourceVersion, initialEventsEnd) => {
    const metadata: Record<string, unknown> = { resourceVersion };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return `${JSON.stringify({ type: 'BOOKMARK', object: { kind, apiVersion, metadata } })}\n`;
  };
  bookmarkEncoders.set(def, encode);
  return encode;
}

/** One-row Tables for `kubectl get -w`: column definitions with the first row only. */
function tableEncoder(input: HandlerInput, apiVersion: string, includeObject: IncludeObject): (type: string, obj: KubeObject) => string {
  const columns = input.definition.table as readonly TableColumnSource<KubeObject>[];
  let columnsSent = false;
  return (type, obj) => {
    const table = buildTable(columns, [obj], {
      includeObject,
      now: new Date(),
      apiVersion,
      listMeta: { resourceVersion: obj.metadata.resourceVersion ?? '' },
      omitColumnDefinitions: columnsSent,
    });
    columnsSent = true;
    return `${JSON.stringify({ type, object: table })}\n`;
  };
}
