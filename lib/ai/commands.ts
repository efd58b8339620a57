import { SHROUD_COMMANDS } from './docs-index.generated.ts';

export type { ShroudCommandShape } from './command-shape.ts';

/**
 * The only commands the assistant may suggest, by an allow-list parser: one `shroud`
 * command line (a real command of the terminal program with its own long options: isShroudLine),
 * or one `curl` to one quoted URL of this API (isApiCurl). Anything else — a second command, a
 * redirection, an expansion, another program, another URL, an option that reads or writes a file
 * or goes through a proxy — is dropped. Every suggestion of every backend passes here; a model
 * persuaded by a file name to suggest `rm` or `curl -o ~/.bashrc` gets its suggestion dropped.
 */
export function isSafeCommand(command: string, baseUrl: string): boolean {
  return isShroudLine(command) || isApiCurl(command, baseUrl);
}

/** The cookie jar the assistant's curl lines read and write (lib/ai/intents.ts `curl`): the only file a curl line may name. */
export const COOKIE_JAR = '~/.shroud-cookies';
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Headers a JSON API call needs; a header value never starts with `@` (curl reads a file for it). */
const HEADER = /^(content-type: application\/json|idempotency-key: [A-Za-z0-9_.:-]{1,100}|accept: application\/json)$/i;
const quoted = (w: string) => w.length >= 2 && w.startsWith("'") && w.endsWith("'");

/**
 * `curl` with, in any order and each at most once: `-s`; `-b` and `-c` with the assistant's
 * cookie jar; `-X` and a method; `-H` and a quoted header of HEADER; `-d` and quoted JSON (an
 * object or array: never `@file`); and exactly one quoted URL under `<baseUrl>/api/`. Nothing else.
 */
export function isApiCurl(command: string, baseUrl: string): boolean {
  if (command.length > 2000 || !LINE.test(command)) return false;
  const words = command.split(/ (?=(?:[^']*'[^']*')*[^']*$)/);
  if (words[0] !== 'curl') return false;
  const seen = new Set<string>();
  let urls = 0;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (quoted(w)) {
      const url = w.slice(1, -1);
      if (!url.startsWith(`${baseUrl}/api/`) || url.includes('..') || /[\s\\]/.test(url)) return false;
      urls++;
      continue;
    }
    if (seen.has(w)) return false;
    seen.add(w);
    const value = words[i + 1];
    if (w === '-s') continue;
    if (value === undefined) return false;
    i++;
    if (w === '-b' || w === '-c') {
      if (value !== COOKIE_JAR) return false;
    } else if (w === '-X') {
      if (!METHODS.has(value)) return false;
    } else if (w === '-H') {
      if (!quoted(value) || !HEADER.test(value.slice(1, -1))) return false;
    } else if (w === '-d') {
      if (!quoted(value) || !isJsonBody(value.slice(1, -1))) return false;
    } else return false;
  }
  return urls === 1;
}

function isJsonBody(text: string): boolean {
  if (!text.startsWith('{') && !text.startsWith('[')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Options a suggestion never carries: a secret (a password, a key, a shielded note) typed on a command line stays in the shell's
 * history (the CLI asks for it instead), and another API URL would send the user's session
 * elsewhere.
 */
const NEVER = new Set(['--password', '--secret', '--secret-key', '--note', '--blinding', '--api-url']);

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

/**
 * A value in a suggested line: a placeholder the user fills in (`'<file>'`), or a plain word that
 * names no path (no `/`, not starting with `.`): a suggestion never chooses where a file is read or
 * written (`shroud download <id> <out>` with `.bashrc`).
 */
const isValueWord = (w: string) =>
  w.startsWith("'")
    ? w.length >= 2 && w.endsWith("'") && PLACEHOLDER.test(w.slice(1, -1))
    : PLAIN.test(w) && !w.startsWith('-') && !w.startsWith('.') && !w.includes('/');

/** A plain word as it is; anything else (a name with a space, a quote, `$`) replaced by the placeholder. */
export const wordOr = (value: string | undefined, placeholder: string): string =>
  value !== undefined && PLAIN.test(value) && !value.startsWith('-') ? value : placeholder;

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
