import { SHROUD_COMMANDS } from './docs-index.generated.ts';

export type { ShroudCommandShape } from './command-shape.ts';

/**
 * The only commands the assistant may suggest: a `shroud` command line (the terminal program,
 * checked against its real command set), or `curl` / `open` against this API where no command
 * does the task — nothing a shell would read as a second command, a redirection or an expansion.
 * Every suggestion of every backend passes here; a model persuaded by a file name to suggest
 * `rm` gets its suggestion dropped.
 */
export function isSafeCommand(command: string, baseUrl: string): boolean {
  return isShroudLine(command) || isSafeCurl(command, baseUrl);
}

function isSafeCurl(command: string, baseUrl: string): boolean {
  if (command.length > 2000 || !/^(curl|open) /.test(command)) return false;
  const unquoted = command.replace(/'[^']*'/g, "''");
  if (/[;|&`$<>\\(){}'"\n\r]/.test(unquoted.replace(/''/g, ''))) return false;
  const urls = [...command.matchAll(/'(https?:\/\/[^']*)'/g)].map((m) => m[1]!);
  return urls.length >= 1 && urls.every((u) => u.startsWith(`${baseUrl}/api/`) && !u.includes('..'));
}


/**
 * Options a suggestion never carries: a secret typed on a command line stays in the shell's
 * history (the CLI asks for it instead), and another API URL would send the user's session
 * elsewhere.
 */
const NEVER = new Set(['--password', '--secret', '--blinding', '--api-url']);

/** A word the shell passes as it is: no expansion (`~ * ? [ ] ! $`), comment, quote, redirection or separator. */
const PLAIN = /^[A-Za-z0-9_.:@/+=,-]+$/;
/** A placeholder for the user to fill in, shown single-quoted (`'<file>'`) so that `<` is no redirection. */
const PLACEHOLDER = /^<[a-z][A-Za-z0-9 -]{0,40}>$/;
/** Words separated by one space; a quoted word is quoted whole, with no quote or line break inside. */
const LINE = /^(?:'[^'\n\r]*'|[^\s']+)(?: (?:'[^'\n\r]*'|[^\s']+))*$/;

const shapes = new Map(SHROUD_COMMANDS.map((c) => [c.name, c]));

/** A `shroud` line: a real command, its own long options (never one in NEVER), no more arguments than it takes. */
export function isShroudLine(line: string): boolean {
  if (line.length > 500 || !LINE.test(line)) return false;
  const words = line.split(/ (?=(?:[^']*'[^']*')*[^']*$)/);
  if (words[0] !== 'shroud') return false;
  const shape = shapes.get(`${words[1]} ${words[2]}`) ?? shapes.get(words[1] ?? '');
  if (!shape) return false;
  const rest = words.slice(1 + shape.name.split(' ').length);
  let positional = 0;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w.startsWith('-')) {
      const option = shape.options.find((o) => o.flag === w);
      if (!option || NEVER.has(w)) return false;
      if (option.value) {
        const value = rest[++i];
        if (value === undefined || !isValueWord(value)) return false;
      }
      continue;
    }
    if (!isValueWord(w)) return false;
    positional++;
  }
  return positional <= shape.args || shape.variadic;
}

const isValueWord = (w: string) => (w.startsWith("'") ? w.length >= 2 && w.endsWith("'") : PLAIN.test(w) && !w.startsWith('-'));

/** A plain word as it is; anything else (a name with a space, a quote, `$`) replaced by the placeholder. */
export const wordOr = (value: string | undefined, placeholder: string): string => (value !== undefined && PLAIN.test(value) && !value.startsWith('-') ? value : placeholder);

function word(v: string | number): string {
  const s = String(v);
  if (PLACEHOLDER.test(s)) return `'${s}'`;
  if (PLAIN.test(s) && !s.startsWith('-')) return s;
  throw new Error('unsafe value in a command');
}

/**
 * A `shroud` command line: every value a plain word or a placeholder, the command and its options
 * checked against the real command set (an intent that names a command the CLI no longer has
 * fails here, in the tests).
 */
export function shroudCommand(name: string, args: (string | number)[] = [], options: Record<string, string | number | undefined> = {}): string {
  const parts = ['shroud', name, ...args.map(word)];
  for (const [flag, value] of Object.entries(options)) if (value !== undefined) parts.push(`--${flag}`, word(value));
  const line = parts.join(' ');
  if (!isShroudLine(line)) throw new Error(`not a shroud command line: ${line}`);
  return line;
}

/** The command's words in a suggested line (`shroud wallet create x` → `wallet create`), for citing its help. */
export function shroudCommandName(line: string): string | undefined {
  if (!isShroudLine(line)) return undefined;
  const words = line.split(' ');
  return shapes.has(`${words[1]} ${words[2]}`) ? `${words[1]} ${words[2]}` : words[1];
}
