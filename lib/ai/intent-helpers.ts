import type { Slots } from './slots.ts';
import { wordOr } from './commands.ts';
import type { BalanceFact, FileFact, IntentContext } from './intent-types.ts';

/** What the intents of lib/ai/intents/ share: the curl form, the caller's wallet and file by name, sentences of values. */
const JAR = '~/.shroud-cookies';

/** A curl command; every value in `body` has passed a strict pattern, and a quote can never reach the shell. */
export function curl(base: string, method: string, path: string, body?: Record<string, unknown>, extra = ''): string {
  const json = body ? JSON.stringify(body) : '';
  if (/['\\`$]/.test(json) || /['\\`$\s]/.test(path)) throw new Error('unsafe value in a command');
  return [
    `curl -s -b ${JAR} -c ${JAR}`,
    method === 'GET' ? '' : `-X ${method}`,
    `'${base}${path}'`,
    body ? `-H 'content-type: application/json' -d '${json}'` : '',
    extra,
  ]
    .filter(Boolean)
    .join(' ');
}

export const amountOr = (s: Slots, fallback: number) => (s.amount !== undefined && Number.isFinite(s.amount) && s.amount > 0 ? s.amount : fallback);
export const quoted = (s: string) => `"${s}"`;

/** The wallet the message names, else the active one on the chain, else a placeholder. */
export function walletFor(s: Slots, ctx: IntentContext, chain: 'a' | 'b' = s.chain ?? 'a'): { id: string; ref: string; label: string; found: boolean } {
  const own = ctx.wallets ?? [];
  const lower = ctx.message.toLowerCase();
  const byName = own.find(
    (w) =>
      (s.name && w.name.toLowerCase() === s.name.toLowerCase()) || (w.name.length >= 3 && new RegExp(`\\b${escapeRe(w.name.toLowerCase())}\\b`).test(lower)),
  );
  const byId = s.uuid ? own.find((w) => w.id === s.uuid) : undefined;
  const w = byId ?? byName ?? own.find((x) => x.chain === chain && x.isActive) ?? own.find((x) => x.chain === chain);
  // `--wallet` takes a name or an id: the name when it is a plain word (names are the user's data).
  return w
    ? { id: w.id, ref: wordOr(w.name, w.id), label: `wallet ${quoted(w.name)}`, found: true }
    : { id: '<walletId>', ref: '<wallet>', label: 'your wallet', found: false };
}

/** The file the message names (its id, or its name), else the newest one, else a placeholder. */
export function fileFor(s: Slots, ctx: IntentContext): { id: string; label: string; found: boolean } {
  const own = ctx.files ?? [];
  const lower = ctx.message.toLowerCase();
  const f =
    (s.uuid ? own.find((x) => x.id === s.uuid) : undefined) ?? own.find((x) => x.filename.length >= 3 && lower.includes(x.filename.toLowerCase())) ?? own[0];
  // The file name is the user's data: it is quoted as data in the lead, never put in a command.
  return f
    ? { id: wordOr(f.id, '<file id>'), label: `your file ${JSON.stringify(f.filename)}`, found: true }
    : { id: '<file id>', label: 'your file', found: false };
}

/** "Your wallet "main" holds 2.5 SOL; 0.5 SOL compressed." (names are the user's data: quoted). */
export function balanceSentence(b: BalanceFact): string {
  const who = `Your ${b.chain === 'b' ? 'chain B ' : ''}wallet ${JSON.stringify(b.name)}`;
  if (b.error !== undefined || b.balance === undefined) return `${who}'s balance could not be read just now (${b.error ?? 'unavailable'}).`;
  return `${who} holds ${b.balance} ${b.symbol}${b.compressed !== undefined ? `; ${b.compressed} ${b.symbol} compressed` : ''}.`;
}

export const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

/** "You have 2 files: "notes.txt" (10 B, 2026-11-23), …" — the newest five. */
export function filesLead(files: FileFact[]): string {
  if (!files.length) return 'You have no files yet: `shroud upload <file>` encrypts and stores one.';
  const shown = files.slice(0, 5).map((f) => `${JSON.stringify(f.filename)} (${bytes(f.size)}, ${f.createdAt.slice(0, 10)})`);
  return `You have ${files.length} file${files.length === 1 ? '' : 's'}, newest first: ${shown.join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''}.`;
}

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const noWallet = (w: { found: boolean }) => (w.found ? '' : ' You have no wallet yet: create one first (`shroud wallet create <name>`).');
