/**
 * The browser terminal's reading of a typed line against the shared command definitions
 * (lib/cli/commands.ts): words (with quotes), the longest command name, its options and arguments.
 * No DOM here, so it is tested in Node.
 */
import { ShroudError } from '#lib/client/api.ts';
import type { CommandDef, Output } from '#lib/cli/commands.ts';

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
  return ['commands (help <command> for more):', ...defs.map((d) => `  ${d.name.padEnd(width)}${d.summary}`), `  ${'clear'.padEnd(width)}clear the screen`].join('\n');
}

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** An Output as lines of text (the terminal has no table library; columns padded to width). */
export function renderOutput(out: Output, json: boolean): string {
  if (json) return JSON.stringify(out.data, null, 2);
  if ('text' in out) return out.text;
  if ('fields' in out) {
    const width = Math.max(...out.fields.map(([k]) => k.length));
    return out.fields.map(([k, v]) => `\x1b[36m${k.padEnd(width)}\x1b[0m  ${show(v)}`).join('\n');
  }
  if (!out.table.rows.length) return out.empty ?? '(none)';
  const cells = [out.table.columns, ...out.table.rows.map((r) => r.map(show))];
  const widths = out.table.columns.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => String(c ?? '').padEnd(widths[i]!)).join('  ').trimEnd();
  return [`\x1b[36m${line(cells[0]!)}\x1b[0m`, ...cells.slice(1).map(line)].join('\n');
}
