/**
 * `shroud`, the terminal program: commander over the shared command definitions (commands.ts),
 * the typed client, a config file with the API URL and a session file readable only by its owner.
 * Human output by default (tables, colour on a TTY), `--json` for scripts, exit codes by error class.
 */
import { Command, CommanderError, Option } from 'commander';
import type { SingleBar } from 'cli-progress';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { styleText } from 'node:util';
import { ShroudClient, ShroudError } from '#lib/client/api.ts';
import { commands, EXIT, exitCodeOf, withHint, type CommandDef, type Io, type Output, type ProgressBar } from './commands.ts';
import { listenOnLoopback, openBrowser } from './loopback.ts';

const DEFAULT_API_URL = 'http://localhost:3000';
const configDir = () => process.env.SHROUD_CONFIG_DIR ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'shroud');
const configFile = () => join(configDir(), 'config.json');
const sessionFile = () => join(configDir(), 'session.json');

interface Config {
  apiUrl?: string;
}
const readJson = <T>(file: string, fallback: T): T => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return fallback;
  }
};
function writePrivate(file: string, data: unknown) {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its old mode otherwise
}

/** The session file holds the cookies of one API URL; another URL starts signed out. */
interface SessionFile {
  apiUrl: string;
  cookies: Record<string, string>;
}

/** The package's version: its package.json, found upwards from this file (lib/cli/, or the bundle in lib/cli/dist/). */
export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = readJson<{ name?: string; version?: string } | null>(join(dir, 'package.json'), null);
    if (pkg?.name === 'shroud' && pkg.version) return pkg.version;
  }
  return 'unknown';
}

function clientFor(apiUrl: string): ShroudClient {
  const saved = readJson<SessionFile | null>(sessionFile(), null);
  return new ShroudClient({
    baseUrl: apiUrl,
    cookieJar: true,
    cookies: saved?.apiUrl === apiUrl ? saved.cookies : {},
    onCookies: (cookies) => writePrivate(sessionFile(), { apiUrl, cookies } satisfies SessionFile),
  });
}

function askSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    // Piped: the first line of stdin.
    return new Promise((ok) => {
      let buffered = '';
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (chunk: string) => {
        buffered += chunk;
        const end = buffered.indexOf('\n');
        if (end >= 0) {
          process.stdin.pause();
          ok(buffered.slice(0, end).replace(/\r$/, ''));
        }
      });
      process.stdin.once('end', () => ok(buffered.replace(/\r?\n$/, '')));
    });
  }
  process.stderr.write(question);
  const muted = new Writable({ write: (_c, _e, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((ok) => rl.question('', (answer) => (rl.close(), process.stderr.write('\n'), ok(answer))));
}

function progressBar(label: string, enabled: boolean): ProgressBar {
  if (!enabled) return { update() {}, stage() {}, stop() {} };
  // cli-progress loads when a bar is wanted, not at every start (lib/cli/build.mjs: a quick `--help`).
  let bar: SingleBar | undefined;
  void import('cli-progress').then(({ SingleBar, Presets }) => {
    bar = new SingleBar(
      {
        format: '{stage} |{bar}| {percentage}% {value}/{total} KiB {speed} KiB/s ETA {eta_formatted}',
        hideCursor: true,
        clearOnComplete: false,
        stream: process.stderr,
      },
      Presets.shades_classic,
    );
  });
  let started = false;
  let stage = label;
  const t0 = Date.now();
  return {
    stage(s) {
      stage = s;
      if (started) bar?.update({ stage });
      else process.stderr.write(`${s}…\n`);
    },
    update(loaded, total) {
      const kib = Math.round(loaded / 1024);
      const speed = (loaded / 1024 / Math.max((Date.now() - t0) / 1000, 0.001)).toFixed(0);
      if (!bar) return; // not loaded yet: the next update draws it
      if (!started) {
        bar.start(Math.max(Math.round((total ?? loaded) / 1024), 1), 0, { stage, speed });
        started = true;
      }
      bar.update(kib, { stage, speed });
    },
    stop() {
      if (started) bar?.stop();
      started = false;
    },
  };
}

const colour = (on: boolean) => (style: Parameters<typeof styleText>[0], text: string) => (on ? styleText(style, text) : text);

async function render(out: Output, json: boolean, tty: boolean): Promise<string> {
  if (json) return JSON.stringify(out.data, null, 2);
  const c = colour(tty);
  const show = (v: unknown) => (v === null || v === undefined ? c('dim', '—') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if ('text' in out) return out.text;
  if ('fields' in out) {
    const width = Math.max(...out.fields.map(([k]) => k.length));
    return out.fields.map(([k, v]) => `${c('cyan', k.padEnd(width))}  ${show(v)}`).join('\n');
  }
  if (!out.table.rows.length) return c('dim', out.empty ?? '(none)');
  const { default: Table } = await import('cli-table3'); // loaded for a table only (a quick start)
  const table = new Table({ head: out.table.columns, style: { head: tty ? ['cyan'] : [], border: tty ? ['grey'] : [] } });
  for (const row of out.table.rows) table.push(row.map(show));
  return table.toString();
}

function nodeIo(showProgress: boolean, json: boolean): Io {
  return {
    ...(json ? {} : { stream: (text: string) => void process.stdout.write(text) }),
    async readFile(path) {
      return { name: basename(path), bytes: new Uint8Array(await readFile(path)) };
    },
    async writeFile(path, bytes) {
      const full = resolve(path);
      await writeFile(full, bytes);
      return full;
    },
    askSecret,
    interactive: !!process.stdin.isTTY,
    presignedUploads: true,
    progress: (label) => progressBar(label, showProgress),
    async clearSession() {
      rmSync(sessionFile(), { force: true });
    },
    loopback: {
      listen: () => listenOnLoopback(),
      async show(url, wanted) {
        const opened = wanted && (await openBrowser(url));
        // Always printed: the browser may open on another screen, or not at all.
        process.stderr.write(
          `${opened ? 'a browser opened to sign you in; if not, open' : 'open this URL in a browser to sign in'}:\n  ${url}\nwaiting for the browser to come back…\n`,
        );
      },
    },
  };
}

/** Bash and zsh completion from the command definitions. */
export function completionScript(shell: string): string {
  const top = [...new Set(commands.map((d) => d.name.split(' ')[0]!)), 'config', 'completion', 'help'];
  const subs = new Map<string, string[]>();
  for (const d of commands) {
    const [a, b] = d.name.split(' ');
    if (b) subs.set(a!, [...(subs.get(a!) ?? []), b]);
  }
  const cases = [...subs].map(([a, bs]) => `    ${a}) COMPREPLY=( $(compgen -W "${bs.join(' ')}" -- "$cur") ) ;;`).join('\n');
  const bash = `# shroud completion (bash): eval "$(shroud completion bash)"
_shroud() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=( $(compgen -W "${top.join(' ')}" -- "$cur") ); return; fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) COMPREPLY=( $(compgen -f -- "$cur") ) ;;
  esac
}
complete -F _shroud shroud
`;
  if (shell === 'bash') return bash;
  if (shell === 'zsh') return `# shroud completion (zsh): eval "$(shroud completion zsh)"\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
  throw new ShroudError('USAGE', 0, 'completion: bash or zsh');
}

/** What a parsed command line is handed to instead of running it (tests parse suggested commands with it). */
export type Execute = (def: CommandDef, args: string[], opts: Record<string, unknown>) => Promise<void>;

/** The program; `run` returns the exit code (tests call it in-process too). */
export function program(execute?: Execute): Command {
  const root = new Command('shroud')
    .description('Shroud in your terminal: zero-knowledge identity, encrypted files, wallets, ZK tools')
    .option('--api-url <url>', `the API (default: $SHROUD_API_URL, the config file, or ${DEFAULT_API_URL})`)
    .option('--json', 'print the answer as JSON (for scripts)')
    .option('--no-color', 'no colour even on a terminal')
    .version(packageVersion(), '-V, --version', 'the version of shroud')
    .showHelpAfterError()
    .exitOverride();

  const apiUrl = () => (root.opts().apiUrl as string | undefined) ?? process.env.SHROUD_API_URL ?? readJson<Config>(configFile(), {}).apiUrl ?? DEFAULT_API_URL;
  const groups = new Map<string, Command>();

  const attach = (def: CommandDef) => {
    const words = def.name.split(' ');
    let parent = root;
    if (words.length === 2) {
      // `wallet create` under `wallet`; `proofs prove` under `proofs` (which may be a command itself).
      parent = groups.get(words[0]!) ?? root.commands.find((c) => c.name() === words[0]) ?? root.command(words[0]!).description(`${words[0]} commands`);
      groups.set(words[0]!, parent);
    }
    const cmd = parent.command(words.at(-1)!).description(def.summary);
    for (const a of def.args ?? []) cmd.argument(a.optional || a.variadic ? `[${a.name}${a.variadic ? '...' : ''}]` : `<${a.name}>`, a.description);
    for (const o of def.options ?? []) cmd.addOption(new Option(o.flags, o.description).default(o.default));
    cmd.action(async (...given: unknown[]) => {
      const cmdObj = given.at(-1) as Command;
      const args = (given.slice(0, -2) as (string | string[] | undefined)[]).flat().filter((a): a is string => a !== undefined);
      if (execute) return execute(def, args, cmdObj.opts());
      const g = root.opts() as { json?: boolean; color?: boolean };
      const tty = !!process.stdout.isTTY && g.color !== false && !process.env.NO_COLOR;
      const out = await def.run({ client: clientFor(apiUrl()), io: nodeIo(!g.json && !!process.stderr.isTTY, !!g.json), args, opts: cmdObj.opts() });
      process.stdout.write(`${await render(out, !!g.json, tty)}\n`);
    });
  };
  for (const def of commands) attach(def);

  const config = root.command('config').description('the config file (API URL)');
  config
    .command('set-url <url>')
    .description('save the API URL in the config file')
    .action((url: string) => {
      new URL(url);
      writePrivate(configFile(), { ...readJson<Config>(configFile(), {}), apiUrl: url });
      process.stdout.write(`${configFile()}: apiUrl = ${url}\n`);
    });
  config
    .command('show')
    .description('where the files are and the API URL in use')
    .action(async () => {
      const out = { apiUrl: apiUrl(), configFile: configFile(), sessionFile: sessionFile(), signedIn: existsSync(sessionFile()) };
      process.stdout.write(`${await render({ data: out, fields: Object.entries(out) }, !!root.opts().json, false)}\n`);
    });
  root
    .command('completion <shell>')
    .description('shell completion: eval "$(shroud completion bash)" (bash or zsh)')
    .action((shell: string) => {
      process.stdout.write(completionScript(shell));
    });
  return root;
}

export async function run(argv: string[]): Promise<number> {
  const root = program();
  root.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    await root.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const json = argv.includes('--json');
    e = withHint(e);
    if (e instanceof ShroudError) {
      if (json) process.stderr.write(`${JSON.stringify({ error: e.code, message: e.message, status: e.status, retryAfter: e.retryAfter })}\n`);
      else
        process.stderr.write(
          `${colour(!!process.stderr.isTTY)('red', 'error')} ${e.code}: ${e.message}${e.retryAfter ? ` (retry after ${e.retryAfter} s)` : ''}\n`,
        );
    } else {
      process.stderr.write(`error: ${(e as Error).message}\n`);
    }
    return exitCodeOf(e);
  }
}
