/**
 * The browser terminal (bundled by lib/web/bundle.ts): xterm.js running the same command
 * definitions as `shroud` (lib/cli/commands.ts) over the typed client; the session is the
 * browser's same-origin cookie. Files come by drag and drop or the file picker, and downloads are
 * saved by the browser. `login --provider <id>` signs in by redirect (lib/web/oauth.ts): the page
 * goes through the API's OAuth flow and comes back here, signed in. The terminal fills the window
 * and follows its size (columns and rows from xterm's cell size, lib/web/layout.ts); answers are
 * fitted to the width (lib/web/shell.ts) and the assistant's answer is shown as it streams in.
 */
import { Terminal } from '@xterm/xterm';
import { ShroudClient, ShroudError } from '#lib/client/api.ts';
import { commands, type Io, type ProgressBar } from '#lib/cli/commands.ts';
import { checkProvider, loginChoices, loginUrl, oauthLoginOf, returnError, returnOf, type OAuthLogin } from './oauth.ts';
import { fitSize, StreamWrapper, wrapText } from './layout.ts';
import { helpText, parseLine, renderOutput, words } from './shell.ts';

// lineHeight above 1: at 1.0 Chromium's DOM renderer clips underscores (`web_1` read `web 1`).
const term = new Terminal({ cursorBlink: true, convertEol: true, fontSize: 14, lineHeight: 1.15, theme: { background: '#0b0f14' } });
const box = document.getElementById('terminal')!;
term.open(box);

/** xterm's cell in CSS pixels (its renderer's measure; what xterm's fit add-on reads too). */
const cellSize = () =>
  (term as Terminal & { _core?: { _renderService?: { dimensions?: { css: { cell: { width: number; height: number } } } } } })._core?._renderService?.dimensions
    ?.css.cell ?? { width: 0, height: 0 };
/** The viewport's scrollbar takes this many pixels of the width. */
const SCROLLBAR = 14;
function fit() {
  const cell = cellSize();
  const { cols, rows } = fitSize({ width: box.clientWidth, height: box.clientHeight }, cell, SCROLLBAR);
  if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  // For the browser test: the size now, and the cell it was computed from.
  Object.assign(document.body.dataset, { cols: String(term.cols), rows: String(term.rows), cell: `${cell.width}x${cell.height}` });
}
fit();
new ResizeObserver(() => fit()).observe(box);
void document.fonts?.ready.then(() => fit());
/** Output to the terminal's width now (a later resize reflows only what xterm wrapped itself). */
const fitted = (text: string) => wrapText(text, term.cols);
const client = new ShroudClient({ baseUrl: location.origin });
const picked = new Map<string, File>();
const PROMPT = '\x1b[32mshroud\x1b[0m$ ';

let line = '';
let masked = false;
let onLine: ((text: string) => void) | null = null;
const typed: string[] = [];
let back = 0;

term.onData((data) => {
  for (const ch of data) {
    if (ch === '\r') {
      term.write('\r\n');
      const text = line;
      line = '';
      onLine?.(text);
    } else if (ch === '\x7f') {
      if (line) {
        line = line.slice(0, -1);
        term.write('\b \b');
      }
    } else if (ch >= ' ') {
      line += ch;
      term.write(masked ? '*' : ch);
    }
  }
  if (data === '\x1b[A' || data === '\x1b[B') {
    back = Math.max(0, Math.min(typed.length, back + (data === '\x1b[A' ? 1 : -1)));
    term.write('\b \b'.repeat(line.length));
    line = typed[typed.length - back] ?? '';
    term.write(line);
  }
});

const readLine = (hidden: boolean) =>
  new Promise<string>((ok) => {
    masked = hidden;
    onLine = (t) => ((masked = false), (onLine = null), ok(t));
  });

function addFiles(files: FileList | null) {
  for (const f of Array.from(files ?? [])) {
    picked.set(f.name, f);
    term.write(`\r\n${fitted(`\x1b[33mready:\x1b[0m ${f.name} (${f.size} B): upload ${JSON.stringify(f.name)}`)}\r\n${PROMPT}${line}`);
  }
}
const input = document.getElementById('file-input') as HTMLInputElement;
input.addEventListener('change', () => addFiles(input.files));
const drop = document.getElementById('terminal')!;
drop.addEventListener('dragover', (e) => e.preventDefault());
drop.addEventListener('drop', (e) => (e.preventDefault(), addFiles(e.dataTransfer?.files ?? null)));

/** The assistant's answer as it arrives, broken at spaces. */
let streamed: StreamWrapper | null = null;

const io: Io = {
  // A person types here: a new password is asked for twice.
  interactive: true,
  stream(text) {
    streamed ??= new StreamWrapper(() => term.cols);
    term.write(streamed.write(text));
  },
  async readFile(path) {
    const file = picked.get(path);
    if (!file) {
      input.click();
      throw new ShroudError('USAGE', 0, `no file '${path}' here: drop it on the terminal or pick it (the picker is open), then run the command again`);
    }
    return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  },
  async writeFile(path, bytes) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes as BlobPart]));
    a.download = path.split('/').pop()!;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    return a.download;
  },
  async askSecret(question) {
    term.write(question);
    return readLine(true);
  },
  progress(label): ProgressBar {
    let stage = label;
    term.write(`${stage}…`);
    return {
      stage(s) {
        stage = s;
        term.write(`\r\x1b[K${s}…`);
      },
      update(loaded, total) {
        term.write(`\r\x1b[K${stage} ${Math.round(loaded / 1024)}${total ? `/${Math.round(total / 1024)}` : ''} KiB`);
      },
      stop() {
        term.write('\r\x1b[K');
      },
    };
  },
  async clearSession() {},
};

/** Leaves for the provider; the callback brings the page back signed in (see showReturn). */
async function signInWith(login: OAuthLogin): Promise<never> {
  const { providers } = await client.api.zkauthProviders();
  const provider = checkProvider(login.provider, providers);
  term.write(`signing in with ${provider.name}…\n`);
  location.assign(loginUrl(login));
  return new Promise<never>(() => {}); // the page is leaving
}

/** After the OAuth callback sent the page back: who is signed in now, or why not. */
async function showReturn() {
  const returned = returnOf(location.href);
  if (!returned) return;
  history.replaceState(null, '', returned.cleanUrl); // a reload does not repeat the message
  if (returned.error) throw new ShroudError(returned.error, 0, returnError(returned));
  const s = await client.api.zkauthStatus();
  if (!s.authenticated) throw new ShroudError('UNAUTHENTICATED', 401, 'the sign-in did not leave a session in this browser (are cookies blocked?)');
  term.write(
    `${renderOutput(
      {
        data: s,
        fields: [
          ['signed in with', s.provider],
          ['name', s.name],
          ['email', s.email],
        ],
      },
      false,
      term.cols,
    )}\n`,
  );
  await runLine('whoami');
}

async function runLine(text: string) {
  const w = words(text);
  const oauth = oauthLoginOf(w);
  if (oauth) return signInWith(oauth);
  if (w.length === 1 && w[0] === 'login') return term.write(`${fitted(loginChoices((await client.api.zkauthProviders()).providers))}\n`);
  if (w[0] === 'help' || w[0] === '--help') return term.write(`${fitted(helpText(commands, w.slice(1).join(' ') || undefined))}\n`);
  if (w[0] === 'clear') return term.clear();
  if (w.includes('--help'))
    return term.write(
      `${fitted(
        helpText(
          commands,
          w
            .filter((x) => x !== '--help')
            .slice(0, 2)
            .join(' '),
        ),
      )}\n`,
    );
  const parsed = parseLine(text, commands);
  if (!parsed) return;
  streamed = null;
  const out = await parsed.def.run({ client, io: parsed.json ? { ...io, stream: undefined } : io, args: parsed.args, opts: parsed.opts });
  if (streamed) term.write((streamed as StreamWrapper).flush());
  term.write(`${renderOutput(out, parsed.json, term.cols)}\n`);
}

async function runShown(work: () => Promise<unknown>) {
  try {
    await work();
  } catch (e) {
    const err = e instanceof ShroudError ? `${e.code}: ${e.message}` : (e as Error).message;
    if (streamed) term.write(`${streamed.flush()}\n`);
    term.write(`${fitted(`\x1b[31merror\x1b[0m ${err}`)}\n`);
  }
}

async function loop() {
  term.write(`${fitted('\x1b[1mShroud\x1b[0m: the terminal in your browser. Type \x1b[36mhelp\x1b[0m; drop a file here to upload it.')}\n`);
  await runShown(showReturn);
  for (;;) {
    term.write(PROMPT);
    const text = await readLine(false);
    if (text.trim()) typed.push(text);
    back = 0;
    await runShown(() => runLine(text));
    await new Promise<void>((ok) => term.write('', ok));
    document.body.dataset.idle = String(Date.now()); // for the browser test: a command finished
  }
}
term.focus();
void loop();
