// GET <collection>/<name>[/status]

import type { HandlerInput } from '../endpoint.js';
import { respondObject } from './respond.js';

export async function handleGet(input: HandlerInput): Promise<void> {
  const obj = await input.storage.get(input.ctx, input.name, { resourceVersion: input.query.get('resourceVersion') ?? undefined });
  return respondObject(input, 200, obj, true);
}
