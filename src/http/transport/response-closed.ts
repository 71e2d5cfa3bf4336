// Whether a response is over: finished, or its client gone. Node's HTTP/1.1 response says so
// with `closed`; its HTTP/2 compatibility response has no `closed` at all (undefined, which a
// plain check reads as "open"), only its stream does. A request that started after its client
// left must see this: a listener for 'close' added then never runs, and whatever it was to give
// back (an in-flight seat) would be kept for good.

interface RawResponse {
  readonly closed?: boolean;
  readonly stream?: { readonly closed: boolean; readonly destroyed: boolean };
}

export function responseClosed(res: RawResponse): boolean {
  if (res.stream) return res.stream.closed || res.stream.destroyed;
  return res.closed === true;
}
