// The fenced blocks of a Markdown page and the marker before each (docs/docs-tests.md): what the
// docs tests run, compare or leave alone. A marker is an HTML comment on the last non-blank line
// before the opening fence, so GitHub shows nothing of it:
//   <!-- not-run: REASON -->   a shell block not run, and why
//   <!-- output -->            this block is what the run block before it prints
//   <!-- file: examples/X -->  this block is exactly the file examples/X

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Marker = { kind: 'not-run'; reason: string } | { kind: 'output' } | { kind: 'file'; path: string };

export interface DocBlock {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `console`, `yaml`…); '' when the fence names none. */
  lang: string;
  /** The block's lines, the fence's indentation removed, joined with '\n' (no final newline). */
  text: string;
  marker?: Marker;
  /** A marker comment that is none of the above (reported as an error). */
  badMarker?: string;
}

/** Languages whose blocks are commands: each is run, or marked not-run with a reason. */
export const SHELL_LANGS: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'console']);

function parseMarker(comment: string): { marker?: Marker; bad?: string } {
  const body = comment.replace(/^<!--/, '').replace(/-->$/, '').trim();
  if (body === 'output') return { marker: { kind: 'output' } };
  let m = /^not-run:\s*(.*)$/s.exec(body);
  if (m) return m[1]!.trim() ? { marker: { kind: 'not-run', reason: m[1]!.trim() } } : { bad: `${comment} (not-run needs a reason)` };
  m = /^file:\s*(\S+)$/.exec(body);
  if (m) return { marker: { kind: 'file', path: m[1]! } };
  return { bad: comment };
}

export function parseBlocks(page: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    const block: DocBlock = { page, line: i + 1, lang, text: body.join('\n') };
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const before = k >= 0 ? lines[k]!.trim() : '';
    if (/^<!--.*-->$/.test(before)) {
      const { marker, bad } = parseMarker(before);
      if (marker) block.marker = marker;
      if (bad) block.badMarker = bad;
    }
    blocks.push(block);
    i = j;
  }
  return blocks;
}

export const readBlocks = (repo: string, page: string): DocBlock[] => parseBlocks(page, readFileSync(join(repo, page), 'utf8'));

/** One command of a block, as the shell gets it (continuation lines and here-documents kept whole). */
export interface Command {
  text: string;
  /** 1-based line in the page. */
  line: number;
  /** What the page shows it prints (console blocks); undefined when it shows nothing. */
  shown?: string;
}

/**
 * The commands of a `sh` block: each line, with the lines a trailing `\` or a here-document
 * carries on; blank lines and comment lines are left out.
 */
export function shCommands(block: DocBlock): Command[] {
  return splitCommands(block.text.split('\n'), block.line + 1);
}

function splitCommands(lines: string[], firstLine: number): Command[] {
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    if (lines[i]!.trim() === '' || lines[i]!.trim().startsWith('#')) continue;
    const parts = [lines[i]!];
    while (/\\$/.test(lines[i]!) && i + 1 < lines.length) parts.push(lines[++i]!);
    const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(parts.join('\n'));
    if (heredoc) {
      while (i + 1 < lines.length) {
        parts.push(lines[++i]!);
        if (lines[i]!.trim() === heredoc[2]) break;
      }
    }
    commands.push({ text: parts.join('\n'), line: firstLine + start });
  }
  return commands;
}

/**
 * The commands of a `console` block: a line starting `$ ` is a command (carried on by a trailing
 * `\`), the lines up to the next command what it prints.
 */
export function consoleCommands(block: DocBlock): Command[] {
  const lines = block.text.split('\n');
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('$ ')) {
      if (lines[i]!.trim() !== '' && commands.length === 0) throw new Error(`${block.page}:${block.line + 1 + i}: a console block starts with a "$ " command`);
      continue;
    }
    const start = i;
    const parts = [lines[i]!.slice(2)];
    while (/\\$/.test(lines[i]!) && i + 1 < lines.length) parts.push(lines[++i]!);
    const shown: string[] = [];
    while (i + 1 < lines.length && !lines[i + 1]!.startsWith('$ ')) shown.push(lines[++i]!);
    const text = shown.join('\n').trim() === '' ? undefined : shown.join('\n');
    commands.push({ text: parts.join('\n'), line: block.line + 1 + start, shown: text });
  }
  return commands;
}
