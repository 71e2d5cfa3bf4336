// A YAML decoding thread (yaml-decoders.ts starts it): decodes one document at a time and answers
// with the value as JSON text, which the main thread reads in slices (json-text.ts), so that
// neither the yaml package's parse (seconds for megabytes) nor the value's transfer holds the
// main thread. A value JSON cannot carry (.inf, .nan) comes back as a structured clone instead.

import { parentPort } from 'node:worker_threads';
import { isStatusError } from './status-error.js';
import { decodeYamlText } from './yaml-text.js';

export type YamlRequest = { id: number; text: string };
export type YamlAnswer =
  | { id: number; json: string; duplicateFields: string[] }
  | { id: number; value: unknown; duplicateFields: string[] }
  | { id: number; error: string };

class NotJson extends Error {}

const port = parentPort!;
port.on('message', ({ id, text }: YamlRequest) => {
  let answer: YamlAnswer;
  try {
    const { value, duplicateFields } = decodeYamlText(text);
    try {
      const json = JSON.stringify(value, (_k, v: unknown) => {
        if (typeof v === 'number' && !Number.isFinite(v)) throw new NotJson();
        return v;
      });
      answer = { id, json, duplicateFields };
    } catch (err) {
      if (!(err instanceof NotJson)) throw err;
      answer = { id, value, duplicateFields };
    }
  } catch (err) {
    answer = { id, error: isStatusError(err) ? err.message : `error converting YAML to JSON: yaml: ${err instanceof Error ? err.message : String(err)}` };
  }
  port.postMessage(answer);
});
