// DELETE <collection>: deletes every object the selectors match; answers with the list of them.

import { header, type HandlerInput } from '../endpoint.js';
import { deleteOptions, listQuery } from '../query-options.js';
import { respondList } from './respond.js';

export async function handleDeleteCollection(input: HandlerInput): Promise<void> {
  const opts = await deleteOptions(input.body, header(input.req, 'content-type'), input.query);
  input.ctx.dryRun = (opts.dryRun ?? []).length > 0;
  const out = await input.storage.deleteCollection(input.ctx, opts, listQuery(input.query));
  return respondList(input, out.items, { resourceVersion: out.resourceVersion }, false);
}
