/**
 * The browser terminal (bundled by lib/web/bundle.ts): xterm.js running the same command
 * definitions as `shroud` (lib/cli/commands.ts) over the typed client; the session is the
 * browser's same-origin cookie. Files come by drag and drop or the file picker, and downloads are
 * saved by the browser.
 */
import { Terminal } from '@xterm/xterm';
import { ShroudClient, ShroudError } from '#lib/client/api.ts';
import { commands, type Io, type ProgressBar } from '#lib/cli/commands.ts';
import { helpText, parseLine, renderOutput, words } from './shell.ts';

const term = new Terminal({ cursorBlink: true, convertEol: true, fontSize: 14, theme: { background: '#0b0f14' } });
term.open(document.getElementById('terminal')!);
const client = new ShroudClient({ baseUrl: location.origin });
const picked = new Map<string, File>();
const PROMPT = '\x1b[32mshroud\x1b[0m$ ';

let line = '';
let masked = false;
let onLine: ((text: string) => void) | null = null;
const history: string[] = [];
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
    back = Math.max(0, Math.min(history.length, back + (data === '\x1b[A' ? 1 : -1)));
    term.write('\b \b'.repeat(line.length));
    line = history[history.length - back] ?? '';
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
    term.write(`\r\n\x1b[33mready:\x1b[0m ${f.name} (${f.size} B): upload ${JSON.stringify(f.name)}\r\n${PROMPT}${line}`);
  }
}
const input = document.getElementById('file-input') as HTMLInputElement;
input.addEventListener('change', () => addFiles(input.files));
const drop = document.getElementById('terminal')!;
drop.addEventListener('dragover', (e) => e.preventDefault());
drop.addEventListener('drop', (e) => (e.preventDefault(), addFiles(e.dataTransfer?.files ?? null)));

const io: Io = {
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

async function runLine(text: string) {
  const w = words(text);
  if (w[0] === 'help' || w[0] === '--help') return term.write(`${helpText(commands, w.slice(1).join(' ') || undefined).replace(/\n/g, '\r\n')}\r\n`);
  if (w[0] === 'clear') return term.clear();
  if (w.includes('--help')) return term.write(`${helpText(commands, w.filter((x) => x !== '--help').slice(0, 2).join(' '))}\n`);
  const parsed = parseLine(text, commands);
  if (!parsed) return;
  const out = await parsed.def.run({ client, io, args: parsed.args, opts: parsed.opts });
  term.write(`${renderOutput(out, parsed.json)}\n`);
}

async function loop() {
  term.write('\x1b[1mShroud\x1b[0m: the terminal in your browser. Type \x1b[36mhelp\x1b[0m; drop a file here to upload it.\r\n');
  for (;;) {
    term.write(PROMPT);
    const text = await readLine(false);
    if (text.trim()) history.push(text);
    back = 0;
    try {
      await runLine(text);
    } catch (e) {
      const err = e instanceof ShroudError ? `${e.code}: ${e.message}` : (e as Error).message;
      term.write(`\x1b[31merror\x1b[0m ${err}\n`);
    }
    await new Promise<void>((ok) => term.write('', ok));
    document.body.dataset.idle = String(Date.now()); // for the browser test: a command finished
  }
}
term.focus();
void loop();
