// GET <collection>: a consistent, optionally paged and filtered list (or a Table of it).

import type { ListMeta } from '../../../apimachinery/object-meta.js';
import type { HandlerInput } from '../endpoint.js';
import { listQuery } from '../query-options.js';
import { respondList } from './respond.js';
import { noteListed } from '../../filters/work-estimate.js';

export async function handleList(input: HandlerInput): Promise<void> {
  const out = await input.storage.list(input.ctx, listQuery(input.query));
  // The collection's size, for the in-flight limit's estimate of the next list's width.
  noteListed(input.req, out.items.length + (out.remainingItemCount ?? 0));
  const meta: ListMeta = { resourceVersion: out.resourceVersion };
  if (out.continue) meta.continue = out.continue;
  if (out.remainingItemCount !== undefined) meta.remainingItemCount = out.remainingItemCount;
  return respondList(input, out.items, meta);
}
