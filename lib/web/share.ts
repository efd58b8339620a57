/**
 * The share page (`/share/<token>`, bundled by lib/web/bundle.ts): the file's name and size from
 * the link, then the file password proved, the ciphertext fetched, checked and decrypted in this
 * page by the same client code as the terminal's (lib/client/storage.ts), and the file saved
 * by the browser. A link that does not open says why (expired, revoked, unknown, file deleted).
 * `#status[data-state]` (loading, ready, working, saved, error) is what the browser test reads.
 */
import { ShroudClient } from '#lib/client/api.ts';
import { receiveShared, sharedFileSize, shareProblem, shareRefOf, sharedInfo, type SharedInfo, type Stage } from '#lib/client/storage.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $<HTMLParagraphElement>('status');
const problem = $<HTMLParagraphElement>('problem');
const form = $<HTMLFormElement>('receive');
const password = $<HTMLInputElement>('password');
const save = $<HTMLButtonElement>('save');
const client = new ShroudClient({ baseUrl: location.origin });

const STAGES: Record<Stage, string> = {
  encrypting: 'encrypting…',
  proving: 'proving the password (Groth16, in this page)…',
  uploading: 'uploading…',
  downloading: 'downloading the encrypted file…',
  verifying: 'checking its SHA-256…',
  decrypting: 'decrypting…',
};

function show(state: string, text: string) {
  status.dataset.state = state;
  status.textContent = text;
}
function fail(e: unknown, code?: string) {
  problem.hidden = false;
  problem.textContent = shareProblem(e);
  problem.dataset.error = code ?? (e as { code?: string }).code ?? 'ERROR';
  show('error', '');
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);

function saveFile(name: string, bytes: Uint8Array) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([bytes as BlobPart]));
  a.download = name.split('/').pop()!;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

async function open() {
  let token: string;
  try {
    token = shareRefOf(location.href).token;
  } catch (e) {
    return fail(e, 'NOT_A_LINK');
  }
  let info: SharedInfo;
  try {
    info = await sharedInfo(client, token);
  } catch (e) {
    return fail(e);
  }
  $('file-name').textContent = info.file.filename;
  const bytes = sharedFileSize(info);
  $('file-size').textContent = `${size(bytes)} (${bytes} bytes)`;
  $('file-expires').textContent = new Date(info.expiresAt).toLocaleString();
  $('file').hidden = false;
  show('ready', '');
  password.focus();
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void receive(token, info);
  });
}

async function receive(token: string, info: SharedInfo) {
  problem.hidden = true;
  save.disabled = true;
  password.disabled = true;
  try {
    const out = await receiveShared(client, token, info, password.value, {
      onStage: (s) => show('working', STAGES[s]),
      onProgress: (p) => show('working', `downloading ${size(p.loaded)}${p.total ? ` of ${size(p.total)}` : ''}…`),
    });
    saveFile(out.filename, out.bytes);
    show('saved', `saved ${out.filename} (${size(out.bytes.length)}): see your browser's downloads`);
  } catch (e) {
    fail(e);
  }
  save.disabled = false;
  password.disabled = false;
  if (status.dataset.state === 'error') password.select(); // another password may be tried
}

void open();
