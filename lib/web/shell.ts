/**
 * The browser terminal's reading of a typed line against the shared command definitions
 * (lib/cli/commands.ts): words (with quotes), the longest command name, its options and arguments.
 * No DOM here, so it is tested in Node.
 */
import { ShroudError } from '#lib/client/api.ts';
import type { CommandDef, Output } from '#lib/cli/commands.ts';
import { wrapLine, wrapText } from './layout.ts';

/** Splits a line into words; '…' and "…" keep spaces. */
export function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

interface Flag {
  key: string;
  short?: string;
  long: string;
  takesValue: boolean;
}
/** commander's flag form (`-p, --password <password>`) read into names; the key is camelCase like commander's. */
export function flagOf(flags: string): Flag {
  const long = /--([\w-]+)/.exec(flags)![1]!;
  return { long, short: /(?:^|\s)-(\w)\b/.exec(flags)?.[1], takesValue: /[<[]/.test(flags), key: long.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) };
}

export interface Parsed {
  def: CommandDef;
  args: string[];
  opts: Record<string, string | boolean | undefined>;
  json: boolean;
}

const usage = (message: string) => new ShroudError('USAGE', 0, message);

/** The command a line names and what it gives it; null for an empty line. */
export function parseLine(line: string, defs: CommandDef[]): Parsed | null {
  const w = words(line);
  if (!w.length) return null;
  if (w[0] === 'shroud') w.shift();
  const def = defs.find((d) => d.name === w.slice(0, 2).join(' ')) ?? defs.find((d) => d.name === w[0]);
  if (!def) throw usage(`unknown command '${w[0]}': type help`);
  const rest = w.slice(def.name.split(' ').length);
  const flags = (def.options ?? []).map((o) => ({ ...flagOf(o.flags), default: o.default }));
  const opts: Parsed['opts'] = Object.fromEntries(flags.filter((f) => f.default !== undefined).map((f) => [f.key, f.default]));
  const args: string[] = [];
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === '--json') {
      json = true;
      continue;
    }
    if (!word.startsWith('-') || /^-\d/.test(word)) {
      args.push(word);
      continue;
    }
    const [name, inline] = word.split(/=(.*)/s) as [string, string | undefined];
    const flag = flags.find((f) => name === `--${f.long}` || (f.short && name === `-${f.short}`));
    if (!flag) throw usage(`${def.name}: unknown option ${name}`);
    if (!flag.takesValue) opts[flag.key] = true;
    else {
      const value = inline ?? rest[++i];
      if (value === undefined) throw usage(`${def.name}: ${name} needs a value`);
      opts[flag.key] = value;
    }
  }
  const required = (def.args ?? []).filter((a) => !a.optional && !a.variadic);
  if (args.length < required.length) throw usage(`${def.name}: missing ${required[args.length]!.name} (help ${def.name})`);
  return { def, args, opts, json };
}

/** `help` and `help <command>` from the definitions. */
export function helpText(defs: CommandDef[], name?: string): string {
  if (name) {
    const def = defs.find((d) => d.name === name) ?? defs.find((d) => d.name.startsWith(`${name} `));
    if (!def) throw usage(`no command '${name}'`);
    const argsLine = (def.args ?? []).map((a) => (a.optional || a.variadic ? `[${a.name}${a.variadic ? '...' : ''}]` : `<${a.name}>`)).join(' ');
    const lines = [`usage: ${def.name}${argsLine ? ` ${argsLine}` : ''}${def.options?.length ? ' [options]' : ''}`, '', def.summary];
    for (const a of def.args ?? []) lines.push(`  ${a.name.padEnd(28)}${a.description}`);
    for (const o of def.options ?? []) lines.push(`  ${o.flags.padEnd(28)}${o.description}${o.default !== undefined ? ` (default ${o.default})` : ''}`);
    lines.push(`  ${'--json'.padEnd(28)}the answer as JSON`);
    return lines.join('\n');
  }
  const width = Math.max(...defs.map((d) => d.name.length)) + 2;
  return [
    'commands (help <command> for more):',
    ...defs.map((d) => `  ${d.name.padEnd(width)}${d.summary}`),
    `  ${'clear'.padEnd(width)}clear the screen`,
  ].join('\n');
}

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Columns this wide or narrower (dates, sizes, statuses) are never narrowed: they stay on one line. */
const KEEP = 20;
/** Nor are columns of single words up to a UUID's length: ids, to be copied whole. */
const KEEP_WORD = 36;
/** Narrower than this, a wide column would be mostly breaks: the rows are shown as records instead. */
const MIN_WIDE = 12;

/**
 * How wide each column may be for the table to fit `cols` (two spaces between columns): the
 * widest columns narrowed to one common cap, the others kept; null when it cannot fit that way.
 */
export function columnWidths(widths: number[], cols: number, kept: boolean[] = []): number[] | null {
  const room = cols - 2 * (widths.length - 1);
  if (widths.reduce((a, b) => a + b, 0) <= room) return widths;
  const keep = widths.map((w, i) => w <= KEEP || !!kept[i]);
  const fixed = widths.filter((_, i) => keep[i]).reduce((a, b) => a + b, 0);
  const wide = widths.filter((_, i) => !keep[i]).sort((a, b) => a - b);
  let left = room - fixed;
  let cap = 0;
  for (let i = 0; i < wide.length; i++) {
    const share = Math.floor(left / (wide.length - i));
    if (wide[i]! > share) {
      cap = share;
      break;
    }
    left -= wide[i]!;
  }
  if (cap < MIN_WIDE) return null;
  return widths.map((w, i) => (keep[i] ? w : Math.min(w, cap)));
}

/** A table's cells broken into lines of their column's width, at spaces where there are some. */
function tableLines(rows: string[][], widths: number[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const cells = row.map((c, i) => wrapLine(c, widths[i]!));
    const height = Math.max(...cells.map((c) => c.length));
    for (let l = 0; l < height; l++)
      out.push(
        cells
          .map((c, i) => (c[l] ?? '').padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
  }
  return out;
}

/**
 * An Output as lines of text (the terminal has no table library: columns padded to width). With
 * `cols`, it fits that width: wide table columns narrowed and their cells broken over lines, or
 * each row as a record when the table cannot fit; values broken at spaces under their key.
 */
export function renderOutput(out: Output, json: boolean, cols = Infinity): string {
  if (json) return JSON.stringify(out.data, null, 2);
  if ('text' in out) return Number.isFinite(cols) ? wrapText(out.text, cols) : out.text;
  if ('fields' in out) {
    const width = Math.max(...out.fields.map(([k]) => k.length));
    const indent = width + 2 <= cols / 2 ? width + 2 : 0;
    return out.fields.map(([k, v]) => wrapLine(`\x1b[36m${k.padEnd(width)}\x1b[0m  ${show(v)}`, cols, indent).join('\n')).join('\n');
  }
  if (!out.table.rows.length) return out.empty ?? '(none)';
  const cells = [out.table.columns, ...out.table.rows.map((r) => out.table.columns.map((_, i) => show(r[i])))];
  const natural = out.table.columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const ids = out.table.columns.map((_, i) => cells.slice(1).every((r) => !/\s/.test(r[i]!) && r[i]!.length <= KEEP_WORD));
  const widths = Number.isFinite(cols) ? columnWidths(natural, cols, ids) : natural;
  if (!widths) {
    // Too narrow for columns: one record per row, `column  value`, a blank line between rows.
    const key = Math.max(...out.table.columns.map((c) => c.length));
    const indent = key + 2 <= cols / 2 ? key + 2 : 0;
    return cells
      .slice(1)
      .map((r) => r.map((v, i) => wrapLine(`\x1b[36m${out.table.columns[i]!.padEnd(key)}\x1b[0m  ${v}`, cols, indent).join('\n')).join('\n'))
      .join('\n\n');
  }
  const head = tableLines([cells[0]!], widths).map((l) => `\x1b[36m${l}\x1b[0m`);
  return [...head, ...tableLines(cells.slice(1), widths)].join('\n');
}
