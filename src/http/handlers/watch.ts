// GET <collection>?watch=true: placeholder until the watch issue lands (see the issue note).

import { methodNotSupported } from '../../apimachinery/status-error.js';
import { groupResourceOf } from '../../registry/resource-definition.js';
import type { HandlerInput } from '../endpoint.js';

export async function handleWatch(input: HandlerInput): Promise<void> {
  throw methodNotSupported(groupResourceOf(input.definition), 'watch');
}
