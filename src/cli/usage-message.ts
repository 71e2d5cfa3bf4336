// A usage mistake as one line: commander's message without its "error: " prefix, its
// "(Did you mean …?)" suggestion kept on the same line.

export function usageMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ').trim();
}
