/**
 * The commands of `shroud`, defined once for the terminal program (lib/cli/main.ts, commander) and
 * the browser terminal: each is a name, its arguments and options, and a `run` over the typed
 * client and an `Io` (files, prompts, progress, the saved session) that each host provides.
 * A command returns an Output: the data (`--json` prints it as is) and how a human sees it.
 */
import { ShroudError, type ShroudClient } from '#lib/client/api.ts';
import { downloadFile, listAllFiles, uploadFile, type Stage } from '#lib/client/files.ts';
import { createIdentity } from '#lib/client/identity.ts';
import { loopbackLogin, type LoopbackListener } from '#lib/client/oauth-loopback.ts';
import { chatEvents, type Answer as AssistantAnswer } from '#lib/client/assistant.ts';
import { attestationProof } from '#lib/client/attest-proof.ts';
import { receive } from './receive.ts';
import { swapCommands } from './swap.ts';
import { rewardsCommands } from './rewards.ts';
import { groupCommands } from './groups.ts';
import { tokenCommands } from './tokens.ts';
import { shieldedCommands } from './shielded.ts';
import { bugCommands } from './bug.ts';
import { amountOf, need, NATIVE_DECIMALS, secret, str, STRK_DECIMALS, submittedFields, usage, walletByNameOrId, walletOf, wholeUnits } from './shared.ts';

export { wholeUnits } from './shared.ts';

export interface ArgDef {
  name: string;
  description: string;
  optional?: boolean;
  /** Takes the rest of the words. */
  variadic?: boolean;
}
export interface OptionDef {
  /** commander's form: `-p, --password <password>`, `--json`. */
  flags: string;
  description: string;
  default?: string;
}

export interface ProgressBar {
  update(loaded: number, total?: number): void;
  stage(label: string): void;
  stop(): void;
}

/** What a host gives the commands. */
export interface Io {
  readFile(path: string): Promise<{ name: string; bytes: Uint8Array }>;
  writeFile(path: string, bytes: Uint8Array): Promise<string>;
  /** A secret asked for (no echo) when not given as an option. */
  askSecret(question: string): Promise<string>;
  progress(label: string, total?: number): ProgressBar;
  /** Forget the saved session (logout). */
  clearSession(): Promise<void>;
  /**
   * OAuth for native apps (RFC 8252): a one-shot listener on 127.0.0.1 and a way to show the
   * sign-in URL (open a browser unless told not to; always print it). Hosts without a loopback
   * leave it out (the browser terminal signs in by redirect, lib/web/oauth.ts).
   */
  loopback?: { listen(): Promise<LoopbackListener>; show(url: string, openBrowser: boolean): Promise<void> };
  /** Prompts reach a person (a terminal), not a pipe: new passwords are asked for twice. */
  interactive?: boolean;
  /** Text shown as it arrives (the assistant's answer); hosts leave it out under `--json`, and the command returns it whole. */
  stream?(text: string): void;
}

export type Output =
  | { data: unknown; table: { columns: string[]; rows: (string | number | boolean | null | undefined)[][] }; empty?: string }
  | { data: unknown; fields: [string, unknown][] }
  | { data: unknown; text: string };

export interface CommandContext {
  client: ShroudClient;
  io: Io;
  args: string[];
  opts: Record<string, string | boolean | undefined>;
}

export interface CommandDef {
  /** Words: `wallet create`, `toolkit hash`. */
  name: string;
  summary: string;
  args?: ArgDef[];
  options?: OptionDef[];
  run(ctx: CommandContext): Promise<Output>;
}

/** Exit codes by error class (the CLI's contract with scripts; README). */
export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, notFound: 4, refused: 5, rateLimited: 6, unavailable: 7 } as const;

export function exitCodeOf(e: unknown): number {
  if (!(e instanceof ShroudError)) return EXIT.failure;
  if (e.status === 0) return e.code === 'NETWORK_ERROR' ? EXIT.unavailable : EXIT.usage;
  if (e.status === 400) return EXIT.usage;
  if (e.status === 401 || e.status === 403) return EXIT.auth;
  if (e.status === 404 || e.status === 410) return EXIT.notFound;
  if (e.status === 429) return EXIT.rateLimited;
  if (e.status >= 500) return EXIT.unavailable;
  return EXIT.refused;
}


const kb = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

const STAGE_LABEL: Record<Stage, string> = {
  encrypting: 'encrypting',
  proving: 'proving (Groth16)',
  uploading: 'uploading',
  downloading: 'downloading',
  verifying: 'checking',
  decrypting: 'decrypting',
};

const passwordOption: OptionDef = { flags: '-p, --password <password>', description: 'the password (asked for when left out)' };
const filePasswordOption: OptionDef = { flags: '-p, --password <password>', description: "the file's password, the one it was uploaded with (asked for when left out)" };
const walletOption: OptionDef = { flags: '-w, --wallet <wallet>', description: 'the wallet, by name or id, on chain A or B (default: the active chain A wallet)' };


/** The SHA-256 of bytes as hex (WebCrypto: the same in Node and the browser terminal). */
async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** What every command says when the session is missing or over (`whoami`, `files`, … alike). */
export const SIGNED_OUT_HINT = 'sign in with `shroud login <username>` (or `shroud register <username>` for a new account)';
export function withHint(e: unknown): unknown {
  if (e instanceof ShroudError && (e.code === 'UNAUTHENTICATED' || e.code === 'SESSION_EXPIRED') && !e.message.includes('shroud login')) {
    return new ShroudError(e.code, e.status, `${e.message === 'not authenticated' ? 'not signed in' : e.message}: ${SIGNED_OUT_HINT}`, e.retryAfter);
  }
  return e;
}

/** A new password, typed twice when asked for (an option or piped stdin is taken as given). */
async function newSecret(ctx: CommandContext, flag: string, what: string): Promise<string> {
  const given = str(ctx.opts[flag]);
  if (given !== undefined) return given;
  const first = await ctx.io.askSecret(`new ${what}: `);
  if (!ctx.io.interactive) return first;
  const again = await ctx.io.askSecret(`new ${what} again: `);
  if (again !== first) throw usage(`the two ${what}s differ: nothing was changed`);
  return first;
}




/** Compression is chain A's (ZK compression): a chain B wallet is told so, with where to go instead. */
async function chainAWalletId(ctx: CommandContext, command: string): Promise<string> {
  const w = await walletOf(ctx);
  if (w.chain !== 'a') {
    throw usage(`${command}: compression exists on chain A only, and '${w.name}' is a chain B wallet (\`shroud wallets --chain a\` lists your chain A wallets; \`shroud send\` moves tokens on chain B)`);
  }
  return w.id;
}

/** The bridge's steps as the terminal does them: the API calls they name become the commands. */
export function bridgeStepForCli(step: string): string {
  return step
    .replace(/POST \/api\/bridge\/([\w-]+)\/source-tx \{"txHash": "<([^>]+)>"\}\.?/, 'shroud bridge source-tx $1 <$2>')
    .replace(/([Ff])ollow GET \/api\/bridge\/status\/([\w-]+)/, '$1ollow: shroud bridge status $2');
}

/** The providers this server offers, and the password login: what `shroud login` alone prints. */
async function loginChoices(ctx: CommandContext): Promise<Output> {
  const { providers } = await ctx.client.api.zkauthProviders();
  const usable = providers.filter((p) => p.enabled);
  const lines = ['sign in with a password:  shroud login <username>', ...usable.map((p) => `sign in with ${p.name}:`.padEnd(26) + `shroud login --provider ${p.id}`)];
  if (!usable.length) lines.push('(no OAuth provider is configured on this server)');
  return { data: { providers }, text: lines.join('\n') };
}

/** `login --provider <id>`: the browser signs in, the loopback gets the handoff code, the code + verifier the session. */
async function oauthLogin(ctx: CommandContext, provider: string): Promise<Output> {
  if (!ctx.io.loopback) throw usage('login --provider: this terminal signs in by redirect');
  const { providers } = await ctx.client.api.zkauthProviders();
  const known = providers.find((p) => p.id === provider);
  if (!known?.enabled) {
    const usable = providers.filter((p) => p.enabled).map((p) => p.id);
    throw usage(`${known ? `provider '${provider}' is not enabled` : `unknown provider '${provider.slice(0, 40)}'`}: ${usable.length ? `use one of ${usable.join(', ')}` : 'none is configured on this server'}`);
  }
  const loopback = ctx.io.loopback;
  const openBrowser = ctx.opts.browser !== false && ctx.opts.noBrowser !== true;
  const out = await loopbackLogin(ctx.client, { provider, hint: ctx.args[0], listener: await loopback.listen(), show: (url) => loopback.show(url, openBrowser) });
  return { data: out, fields: [['signed in with', known.name], ['user', out.user.username ?? out.user.id], ['zkId', out.user.zkId]] };
}

/** A toolkit operation: `toolkit field add 1 2`. */
const TOOLKIT: Record<string, Record<string, (c: ShroudClient, a: string[]) => Promise<unknown>>> = {
  hash: {
    poseidon: (c, a) => c.api.zkToolkitHashPoseidon({ body: a.length === 1 ? { input: a[0]! } : { inputs: a } }),
    mimc: (c, a) => c.api.zkToolkitHashMimc({ body: { input: a[0]!, key: a[1] } }),
    pedersen: (c, a) => c.api.zkToolkitHashPedersen({ body: { input: a.join(' ') } }),
  },
  field: {
    add: (c, a) => c.api.zkToolkitFieldAdd({ body: { a: a[0]!, b: a[1]! } }),
    sub: (c, a) => c.api.zkToolkitFieldSub({ body: { a: a[0]!, b: a[1]! } }),
    mul: (c, a) => c.api.zkToolkitFieldMul({ body: { a: a[0]!, b: a[1]! } }),
    div: (c, a) => c.api.zkToolkitFieldDiv({ body: { a: a[0]!, b: a[1]! } }),
    inv: (c, a) => c.api.zkToolkitFieldInv({ body: { a: a[0]! } }),
    sqrt: (c, a) => c.api.zkToolkitFieldSqrt({ body: { a: a[0]! } }),
    pow: (c, a) => c.api.zkToolkitFieldPow({ body: { base: a[0]!, exp: a[1]! } }),
    random: (c) => c.api.zkToolkitFieldRandom(),
    prime: (c) => c.api.zkToolkitFieldPrime(),
  },
  ec: {
    base: (c) => c.api.zkToolkitEcBase(),
    params: (c) => c.api.zkToolkitEcParams(),
    mulbase: (c, a) => c.api.zkToolkitEcMulbase({ body: { scalar: a[0]! } }),
    add: (c, a) => c.api.zkToolkitEcAdd({ body: { p1: { x: a[0]!, y: a[1]! }, p2: { x: a[2]!, y: a[3]! } } }),
    mul: (c, a) => c.api.zkToolkitEcMul({ body: { point: { x: a[0]!, y: a[1]! }, scalar: a[2]! } }),
    isoncurve: (c, a) => c.api.zkToolkitEcIsoncurve({ body: { x: a[0]!, y: a[1]! } }),
  },
  shamir: {
    split: (c, a) => c.api.zkToolkitShamirSplit({ body: { secret: a[0]!, threshold: Number(a[1]), shares: Number(a[2]) } }),
    combine: (c, a) => c.api.zkToolkitShamirCombine({ body: { shares: a } }),
  },
};

const flatFields = (data: unknown, prefix = ''): [string, unknown][] =>
  data && typeof data === 'object' && !Array.isArray(data)
    ? Object.entries(data).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? flatFields(v, `${prefix}${k}.`) : [[`${prefix}${k}`, Array.isArray(v) ? v.join(', ') : v] as [string, unknown]]))
    : [[prefix || 'value', data]];

export const commands: CommandDef[] = [
  // --- account
  {
    name: 'register',
    summary: 'create an account with a zero-knowledge identity (the key is made and encrypted here)',
    args: [{ name: 'username', description: '3–32 letters, digits, _ . -' }],
    options: [passwordOption],
    async run(ctx) {
      const username = need(ctx.args[0], 'username');
      const password = await newSecret(ctx, 'password', 'account password');
      const identity = await createIdentity(password);
      const out = await ctx.client.api.authRegister({ body: { username, password, ...identity.encrypted } });
      return { data: out, fields: [['registered', out.user.username], ['zkId', out.user.zkId], ['identity key', out.user.identityPublicKey]] };
    },
  },
  {
    name: 'login',
    summary: 'sign in with a password, or with --provider through the browser (the session is kept in the session file, mode 0600)',
    args: [{ name: 'username', description: 'your username (with --provider: the account to pre-select at the provider)', optional: true }],
    options: [
      passwordOption,
      { flags: '--provider <id>', description: 'sign in with an OAuth provider (`shroud login` lists them)' },
      { flags: '--no-browser', description: 'with --provider: print the sign-in URL instead of opening a browser' },
    ],
    async run(ctx) {
      const provider = str(ctx.opts.provider);
      if (provider !== undefined) return oauthLogin(ctx, provider);
      const username = ctx.args[0];
      if (!username) return loginChoices(ctx);
      const password = await secret(ctx, 'password', `account password for ${username}: `);
      const out = await ctx.client.api.authLogin({ body: { username, password } });
      return { data: out, fields: [['signed in as', out.user.username], ['zkId', out.user.zkId]] };
    },
  },
  {
    name: 'whoami',
    summary: 'who this session is',
    async run(ctx) {
      const s = await ctx.client.api.authSession();
      if (!s.authenticated) throw new ShroudError('UNAUTHENTICATED', 401, `not signed in: ${SIGNED_OUT_HINT}`);
      return { data: s, fields: [['username', s.user.username], ['id', s.user.id], ['zkId', s.user.zkId]] };
    },
  },
  {
    name: 'logout',
    summary: 'end the session here and on the server',
    async run(ctx) {
      const out = await ctx.client.api.authLogout();
      await ctx.io.clearSession();
      return { data: out, text: 'signed out' };
    },
  },
  // --- files
  {
    name: 'files',
    summary: 'your encrypted files, newest first',
    async run(ctx) {
      const files = await listAllFiles(ctx.client);
      return {
        data: files,
        table: { columns: ['id', 'name', 'size', 'created', 'cid'], rows: files.map((f) => [f.id, f.originalName, kb(f.originalSize), f.createdAt.slice(0, 19).replace('T', ' '), f.cid]) },
        empty: 'no files yet: `shroud upload <file>`',
      };
    },
  },
  {
    name: 'upload',
    summary: 'encrypt a file here, prove the password (Groth16) and upload the ciphertext',
    args: [{ name: 'file', description: 'the file to upload' }],
    options: [
      { flags: '-p, --password <password>', description: "the file's own password, which encrypts it (asked for twice when left out; not your account password)" },
      { flags: '-n, --name <name>', description: 'the name to store (default: the file name)' },
    ],
    async run(ctx) {
      const { name, bytes } = await ctx.io.readFile(need(ctx.args[0], 'file'));
      const password = await newSecret(ctx, 'password', `file password for ${str(ctx.opts.name) ?? name}`);
      const fileSha256 = await sha256Of(bytes);
      const bar = ctx.io.progress('encrypting');
      try {
        const out = await uploadFile(ctx.client, bytes, password, str(ctx.opts.name) ?? name, {
          onStage: (s) => bar.stage(STAGE_LABEL[s]),
          onProgress: (p) => bar.update(p.loaded, p.total),
        });
        bar.stop();
        // The file's own SHA-256 (what `sha256sum` prints for it here); the server keeps the ciphertext's.
        return {
          data: { ...out, sha256: fileSha256, ciphertextChecksum: out.checksum },
          fields: [['uploaded', out.filename], ['id', out.id], ['cid', out.cid], ['size', kb(out.size)], ['sha-256', fileSha256], ['ciphertext', `${out.checksum} (${kb(out.encryptedSize)} encrypted)`]],
        };
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'download',
    summary: 'prove the password, download, check and decrypt a file',
    args: [
      { name: 'id', description: 'the file id (or its CID)' },
      { name: 'out', description: 'where to write it (default: its name, here)', optional: true },
    ],
    options: [filePasswordOption],
    async run(ctx) {
      const id = need(ctx.args[0], 'id');
      const password = await secret(ctx, 'password', `file password for ${id} (the one it was uploaded with): `);
      const bar = ctx.io.progress('proving');
      try {
        const out = await downloadFile(ctx.client, id, password, {
          onStage: (s) => bar.stage(STAGE_LABEL[s]),
          onProgress: (p) => bar.update(p.loaded, p.total),
        }).catch((e: unknown) => {
          // The proof is of the file password: the server refusing it means the password is not this file's.
          if (e instanceof ShroudError && e.code === 'INVALID_PROOF') throw new ShroudError('WRONG_FILE_PASSWORD', e.status, `wrong file password for ${id}: it is not the password the file was uploaded with`);
          throw e;
        });
        bar.stop();
        const path = await ctx.io.writeFile(ctx.args[1] ?? out.filename, out.bytes);
        const sha256 = await sha256Of(out.bytes);
        return { data: { path, size: out.bytes.length, sha256 }, fields: [['saved', path], ['size', kb(out.bytes.length)], ['sha-256', sha256]] };
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'share',
    summary: 'a share link for a file',
    args: [{ name: 'id', description: 'the file id' }],
    options: [{ flags: '-e, --expires <time>', description: 'how long the link lives: hours (up to 720), or with a unit: 600s, 10m, 48h, 7d (30 days at most)', default: '24' }],
    async run(ctx) {
      const given = String(ctx.opts.expires ?? '24');
      // With a unit the server reads exactly that; a bare number is hours (below 720).
      const expiresIn = /^\d{1,9}[smhd]$/.test(given) ? given : Number(given);
      if (typeof expiresIn === 'number' && !Number.isInteger(expiresIn)) throw usage('--expires: hours, or a number with s, m, h or d (e.g. 7d)');
      const out = await ctx.client.api.storageShare({ body: { fileId: need(ctx.args[0], 'id'), expiresIn } });
      return { data: out, fields: [['link', out.shareUrl], ['expires', out.expiresAt]] };
    },
  },
  {
    name: 'shares',
    summary: 'your share links, newest first (never their tokens)',
    options: [{ flags: '-l, --limit <n>', description: '1–100', default: '20' }],
    async run(ctx) {
      const { shares: links } = await ctx.client.api.storageShares({ query: { limit: String(ctx.opts.limit ?? 20) } });
      return {
        data: links,
        table: { columns: ['id', 'file', 'status', 'expires', 'opened'], rows: links.map((l) => [l.id, l.filename ?? `${l.fileId} (deleted)`, l.status, l.expiresAt.slice(0, 19).replace('T', ' '), l.accessCount]) },
        empty: 'no share links: `shroud share <file id>`',
      };
    },
  },
  {
    name: 'shares revoke',
    summary: 'revoke a share link: it stops opening at once',
    args: [{ name: 'id', description: 'the link id (`shroud shares`)' }],
    async run(ctx) {
      const out = await ctx.client.api.storageSharesRevoke({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `revoked ${ctx.args[0]}` };
    },
  },
  receive,
  {
    name: 'rm',
    summary: 'delete a file',
    args: [{ name: 'id', description: 'the file id' }],
    async run(ctx) {
      const out = await ctx.client.api.storageDeleteA({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `deleted ${ctx.args[0]}` };
    },
  },
  // --- wallets and compression
  {
    name: 'wallets',
    summary: 'your wallets',
    options: [{ flags: '-c, --chain <chain>', description: 'a or b' }],
    async run(ctx) {
      const chain = str(ctx.opts.chain) as 'a' | 'b' | undefined;
      const { wallets } = await ctx.client.api.walletsList({ query: chain ? { chain } : {} });
      return {
        data: wallets,
        table: { columns: ['id', 'chain', 'name', 'address', 'active'], rows: wallets.map((w) => [w.id, w.chain, w.name, w.address, w.isActive ? '*' : '']) },
        empty: 'no wallets yet: `shroud wallet create <name>`',
      };
    },
  },
  {
    name: 'wallet create',
    summary: 'a new wallet (its key is sealed on the server)',
    args: [{ name: 'name', description: 'a name, unique per chain' }],
    options: [{ flags: '-c, --chain <chain>', description: 'a or b', default: 'a' }, { flags: '-p, --password <password>', description: "chain B only: the new wallet's key password (asked for twice when left out)" }],
    async run(ctx) {
      const chain = (str(ctx.opts.chain) ?? 'a') as 'a' | 'b';
      const password = chain === 'b' ? await newSecret(ctx, 'password', `chain B wallet password for ${need(ctx.args[0], 'name')}`) : undefined;
      const { wallet } = await ctx.client.api.walletsCreate({ body: { chain, name: need(ctx.args[0], 'name'), ...(password ? { password } : {}) } });
      return { data: wallet, fields: [['wallet', wallet.name], ['id', wallet.id], ['chain', wallet.chain], ['address', wallet.address], ['active', wallet.isActive]] };
    },
  },
  {
    name: 'airdrop',
    summary: 'free coins on localnet and devnet (chain A: the native coin; chain B, localnet: STRK or ETH)',
    args: [{ name: 'amount', description: 'whole coins (at most 100)' }],
    options: [walletOption, { flags: '-t, --token <token>', description: 'chain B: STRK (default) or ETH' }],
    async run(ctx) {
      const w = await walletOf(ctx);
      const token = str(ctx.opts.token);
      if (token !== undefined && w.chain === 'a') throw usage('--token: chain A airdrops give the native coin only');
      const out = await ctx.client.api.walletsAirdrop({ params: { id: w.id }, body: { amount: amountOf(ctx.args[0]), ...(token ? { token: token as 'STRK' | 'ETH' } : {}) } });
      return { data: out, fields: [['received', `${out.formatted}${w.chain === 'b' ? ` ${token ?? 'STRK'}` : ''}`], ['wallet', `${w.name} (chain ${w.chain.toUpperCase()})`], ['tx', out.txHash]] };
    },
  },
  {
    name: 'balance',
    summary: 'the balance of a wallet, in whole coins: chain A ordinary and compressed, chain B in STRK (or --token)',
    options: [walletOption, { flags: '-t, --token <token>', description: 'chain B: STRK (default), ETH or a token address; chain A: a token mint' }],
    async run(ctx) {
      const w = await walletOf(ctx);
      const token = str(ctx.opts.token);
      if (w.chain === 'b') {
        const plain = await ctx.client.api.walletsBalance({ params: { id: w.id }, query: token ? { token } : {} });
        return { data: plain, fields: [['wallet', `${w.name} (chain B)`], ['address', plain.address], ['balance', `${plain.formatted} ${token ?? 'STRK'}`]] };
      }
      const [plain, compressed] = await Promise.all([
        ctx.client.api.walletsBalance({ params: { id: w.id }, query: token ? { mint: token } : {} }),
        token
          ? ctx.client.api.compressionCompressedTokenBalance({ params: { walletId: w.id, mint: token } })
          : ctx.client.api.compressionCompressedBalance({ params: { walletId: w.id } }),
      ]);
      return { data: { ...plain, compressed }, fields: [['wallet', `${w.name} (chain A)`], ['address', plain.address], ['balance', plain.formatted], ['compressed', compressed.formatted]] };
    },
  },
  {
    name: 'compress',
    summary: 'compress native coin, or a token with --token (ZK compression on chain A)',
    args: [{ name: 'amount', description: 'whole coins (whole tokens with --token)' }],
    options: [walletOption, { flags: '-t, --token <mint>', description: 'a token mint: compress that token instead of the native coin' }],
    async run(ctx) {
      const mint = str(ctx.opts.token);
      if (mint) {
        const t = await ctx.client.api.compressionCompressToken({ body: { walletId: await chainAWalletId(ctx, 'compress'), mint, amount: amountOf(ctx.args[0]) } });
        if ('status' in t) return submittedFields(t);
        return { data: t, fields: [['compressed', wholeUnits(t.compressedAmount, t.decimals)], ['token', t.mint], ['tx', t.txHash]] };
      }
      const out = await ctx.client.api.compressionCompressNative({ body: { walletId: await chainAWalletId(ctx, 'compress'), amount: amountOf(ctx.args[0]) } });
      if ('status' in out) return submittedFields(out);
      return { data: out, fields: [['compressed', wholeUnits(out.compressedAmount, out.decimals)], ['tx', out.txHash]] };
    },
  },
  {
    name: 'decompress',
    summary: 'decompress native coin, or a token with --token (chain A)',
    args: [{ name: 'amount', description: 'whole coins (whole tokens with --token)' }],
    options: [walletOption, { flags: '-t, --token <mint>', description: 'a token mint: decompress that token instead of the native coin' }],
    async run(ctx) {
      const mint = str(ctx.opts.token);
      if (mint) {
        const walletId = await chainAWalletId(ctx, 'decompress');
        const t = await ctx.client.api.compressionDecompressToken({ body: { walletId, mint, amount: amountOf(ctx.args[0]) } });
        if ('status' in t) return submittedFields(t);
        // The answer is in the token's smallest units: its decimals come with the wallet's balance of it.
        const bal = await ctx.client.api.walletsBalance({ params: { id: walletId }, query: { mint } });
        return { data: t, fields: [['decompressed', wholeUnits(t.decompressedAmount, bal.decimals)], ['token', mint], ['tx', t.txHash]] };
      }
      const out = await ctx.client.api.compressionDecompressNative({ body: { walletId: await chainAWalletId(ctx, 'decompress'), amount: amountOf(ctx.args[0]) } });
      if ('status' in out) return submittedFields(out);
      return { data: out, fields: [['decompressed', wholeUnits(out.decompressedAmount, NATIVE_DECIMALS)], ['tx', out.txHash]] };
    },
  },
  {
    name: 'send',
    summary: 'send tokens: compressed tokens from a chain A wallet, or STRK, ETH or a token from a chain B wallet (--wallet)',
    args: [
      { name: 'token', description: 'chain A: the token mint; chain B: STRK, ETH or a token address' },
      { name: 'to', description: 'the recipient address' },
      { name: 'amount', description: 'whole tokens' },
    ],
    options: [walletOption, { flags: '-p, --password <password>', description: "chain B: the wallet's key password (asked for when left out)" }],
    async run(ctx) {
      const w = await walletOf(ctx);
      const token = need(ctx.args[0], 'token');
      const to = need(ctx.args[1], 'to');
      const amount = amountOf(ctx.args[2]);
      if (w.chain === 'b') {
        const password = await secret(ctx, 'password', `chain B wallet password for ${w.name}: `);
        const out = await ctx.client.api.chainbTransfer({ body: { walletId: w.id, token, recipientAddress: to, amount: need(ctx.args[2], 'amount'), password } });
        const fee: [string, unknown][] = 'fee' in out ? [['fee', `${wholeUnits(out.fee, STRK_DECIMALS)} STRK`]] : [['status', `${out.status}: the chain has not confirmed it yet`]];
        return { data: out, fields: [['sent', `${ctx.args[2]} ${token}`], ['from', `${w.name} (chain B)`], ['to', to], ...fee, ['tx', out.txHash], ['explorer', out.explorerUrl]] };
      }
      const out = await ctx.client.api.compressionTransfer({ body: { walletId: w.id, mint: token, to, amount } });
      if ('status' in out) return submittedFields(out);
      // The answer is in the token's smallest units: its decimals come with the wallet's balance of it.
      const left = await ctx.client.api.compressionCompressedTokenBalance({ params: { walletId: w.id, mint: token } });
      return { data: out, fields: [['sent', wholeUnits(out.amount, left.decimals)], ['to', out.to], ['left (compressed)', left.formatted], ['tx', out.txHash]] };
    },
  },
  // --- proofs
  {
    name: 'proofs',
    summary: "this session's STARK proof and its record on chain B",
    async run(ctx) {
      const s = await ctx.client.api.zkauthStatus();
      if (!s.authenticated) throw new ShroudError('UNAUTHENTICATED', 401, `not signed in: ${SIGNED_OUT_HINT}`);
      return { data: s, fields: [['provider', s.provider], ['key hash', s.publicKey], ['on chain B', s.starknet.verified], ['contract', s.starknet.contract], ['expires', s.starknet.proofExpiry]] };
    },
  },
  {
    name: 'proofs prove',
    summary: 'prove the session key (STARK) and record the proof on chain B',
    async run(ctx) {
      const out = await ctx.client.api.zkauthProve();
      return { data: out, fields: [['verified', out.verified], ['tx', out.txHash], ['expires', out.expiresAt], ['proof', `${out.proof.stark_proof.length / 2} bytes`]] };
    },
  },
  {
    name: 'proofs verify',
    summary: "check the session's proof again, and on chain B",
    async run(ctx) {
      const out = await ctx.client.api.zkauthVerify();
      return { data: out, fields: [['valid', out.valid], ['on chain B', out.starknet.verified], ['expires', out.proofExpiry]] };
    },
  },
  // --- bridge (into chain B, and out of it)
  {
    name: 'bridge',
    summary: 'bridge into chain B (or out of it with --direction withdraw): shroud bridge <chaina-chainb|ethereum-chainb> <amount> <token> --to <address>',
    args: [
      { name: 'route', description: 'chaina-chainb (Hyperlane) or ethereum-chainb (StarkGate)' },
      { name: 'amount', description: 'whole units, a decimal (at most the token\'s decimals)' },
      { name: 'token', description: 'SOL, … on chaina-chainb; ETH, USDC, … on ethereum-chainb' },
    ],
    options: [
      { flags: '-t, --to <address>', description: 'the address to credit: chain B (0x…) for a deposit, chain A for a withdrawal' },
      { flags: '-w, --wallet <wallet>', description: 'chaina-chainb: your wallet (name or id) sends it now — chain A for a deposit, chain B for a withdrawal; without it, the steps to send it yourself' },
      { flags: '-d, --direction <direction>', description: 'deposit | withdraw', default: 'deposit' },
      { flags: '-p, --password <password>', description: 'withdraw with --wallet: the chain B wallet\'s password (asked for when left out)' },
    ],
    async run(ctx) {
      const [route, amount, token] = ctx.args;
      const given = str(ctx.opts.wallet);
      const direction = str(ctx.opts.direction) ?? 'deposit';
      // a withdrawal is signed on chain B, whose keys are wrapped under the wallet's password
      const withdrawing = direction === 'withdraw';
      const wallet = given ? await walletByNameOrId(ctx, given, withdrawing ? 'b' : 'a') : undefined;
      const body = {
        bridgeType: need(route, 'route'),
        direction,
        token: need(token, 'token'),
        amount: need(amount, 'amount'),
        destAddress: need(str(ctx.opts.to), '--to <address>'),
        ...(wallet ? { walletId: wallet.id } : {}),
        ...(wallet && withdrawing ? { password: await secret(ctx, 'password', 'chain B wallet password: ') } : {}),
      };
      const out = await ctx.client.api.bridgeInitiate({ body });
      const t = out.transaction;
      return {
        data: out,
        fields: [
          ['bridge', t.id],
          ['status', t.status],
          ['amount', `${t.amount} ${t.token}`],
          ['to', t.destAddress],
          ['source tx', t.sourceTxHash],
          ['expires', t.expiresAt],
          ...(t.status === 'pending' ? ([['step 1', out.instructions.step1], ['step 2', bridgeStepForCli(out.instructions.step2)], ['step 3', bridgeStepForCli(out.instructions.step3)]] as [string, unknown][]) : []),
          ['follow', `shroud bridge status ${t.id}`],
        ],
      };
    },
  },
  {
    name: 'bridge status',
    summary: 'where a bridge transfer is: pending → submitted → source_confirmed → completed',
    args: [{ name: 'id', description: 'the transfer id (`shroud bridge history`)' }],
    async run(ctx) {
      const { transaction: t } = await ctx.client.api.bridgeStatus({ params: { id: need(ctx.args[0], 'id') } });
      return {
        data: t,
        fields: [['bridge', t.id], ['route', `${t.bridgeType} (${t.direction})`], ['status', t.status], ['amount', `${t.amount} ${t.token}`], ['to', t.destAddress], ['source tx', t.sourceTxHash], ['chain B tx', t.destTxHash], ['updated', t.updatedAt]],
      };
    },
  },
  {
    name: 'bridge history',
    summary: 'your bridge transfers, newest first',
    async run(ctx) {
      const { transactions } = await ctx.client.api.bridgeHistory();
      return {
        data: transactions,
        table: { columns: ['id', 'route', 'amount', 'status', 'created'], rows: transactions.map((t) => [t.id, t.bridgeType, `${t.amount} ${t.token}`, t.status, t.createdAt.slice(0, 19).replace('T', ' ')]) },
        empty: 'no bridge transfers yet: `shroud bridge chaina-chainb <amount> SOL --to <address> --wallet <name>`',
      };
    },
  },
  {
    name: 'bridge source-tx',
    summary: "step 2 of a bridge transfer you send yourself: give the source chain's transaction (chain A signature, Ethereum or chain B hash)",
    args: [
      { name: 'id', description: 'the transfer id (`shroud bridge history`)' },
      { name: 'txHash', description: 'the transaction that sent the amount on the source chain' },
    ],
    async run(ctx) {
      const { transaction: t } = await ctx.client.api.bridgeSourceTx({ params: { id: need(ctx.args[0], 'id') }, body: { txHash: need(ctx.args[1], 'txHash') } });
      return { data: t, fields: [['bridge', t.id], ['status', t.status], ['source tx', t.sourceTxHash], ['follow', `shroud bridge status ${t.id}`]] };
    },
  },
  {
    name: 'bridge cancel',
    summary: 'cancel a bridge transfer that is still pending (nothing was sent for it)',
    args: [{ name: 'id', description: 'the transfer id (`shroud bridge history`)' }],
    async run(ctx) {
      const { transaction: t } = await ctx.client.api.bridgeCancel({ params: { id: need(ctx.args[0], 'id') } });
      return { data: t, fields: [['bridge', t.id], ['status', t.status]] };
    },
  },
  // --- attestations
  {
    name: 'attest',
    summary: 'an attestation of a claim, proved here (Groth16): attest age-over-18 --value 30, attest preimage --secret 5, attest range --value 7 --min 1 --max 9',
    args: [{ name: 'schema', description: 'age-over-18 | range | preimage (`shroud attest schemas`)' }],
    options: [
      { flags: '--value <n>', description: 'age-over-18, range: the private value (an age, …)' },
      { flags: '--min <n>', description: 'range: the lower bound' },
      { flags: '--max <n>', description: 'range: the upper bound' },
      { flags: '--secret <n>', description: 'preimage: the secret whose Poseidon hash is the claim; group-member: the secret whose Poseidon hash is your identity commitment' },
      { flags: '--group <id>', description: 'group-member: the group (`shroud group show <id>`)' },
      { flags: '--blinding <n>', description: 'range schemas: the commitment\'s blinding (default: a fresh random one, printed)' },
      { flags: '--scope <scope>', description: 'the scope (one attestation per subject and scope)', default: 'default' },
      { flags: '--anchor', description: 'also record it in chain B\'s registry' },
    ],
    async run(ctx) {
      const schema = need(ctx.args[0], 'schema');
      const scope = str(ctx.opts.scope) ?? 'default';
      const bar = ctx.io.progress('proving');
      bar.stage('proving (Groth16)');
      let proof;
      try {
        proof = await attestationProof(ctx.client, schema, scope, { value: str(ctx.opts.value), min: str(ctx.opts.min), max: str(ctx.opts.max), secret: str(ctx.opts.secret), blinding: str(ctx.opts.blinding), group: str(ctx.opts.group) });
      } finally {
        bar.stop();
      }
      const group = str(ctx.opts.group);
      const out = await ctx.client.api.attestIssue({ body: { schema, proof: proof.proof as never, publicSignals: proof.publicSignals, scope, ...(group ? { group } : {}), ...(ctx.opts.anchor ? { anchor: true } : {}) } });
      const a = out.attestation;
      return {
        data: { ...out, ...(proof.blinding ? { blinding: proof.blinding } : {}) },
        fields: [
          ['attestation', a.id],
          ['schema', a.schema],
          ...Object.entries(a.claims).map(([k, v]) => [`claim ${k}`, v] as [string, unknown]),
          ['nullifier', a.nullifier],
          ['expires', a.expiresAt],
          ...(proof.blinding ? ([['blinding (keep it: it opens the commitment)', proof.blinding]] as [string, unknown][]) : []),
          ...(out.anchor ? ([['chain B', 'txHash' in out.anchor ? out.anchor.txHash : `${out.anchor.error}: ${out.anchor.message}`]] as [string, unknown][]) : []),
        ],
      };
    },
  },
  {
    name: 'attest schemas',
    summary: 'what can be attested: each schema, its circuit and its claims',
    async run(ctx) {
      const { schemas } = await ctx.client.api.attestSchemas();
      const list = schemas as (typeof schemas[number] & { title?: string; claims?: string[]; needsGroup?: boolean })[];
      return { data: schemas, table: { columns: ['schema', 'title', 'circuit', 'claims', 'group'], rows: list.map((x) => [x.id, x.title, x.circuit, (x.claims ?? []).join(', '), x.needsGroup ? 'yes' : '']) } };
    },
  },
  {
    name: 'attest mine',
    summary: 'your attestations, newest first',
    options: [{ flags: '-l, --limit <n>', description: '1–100', default: '20' }],
    async run(ctx) {
      const { attestations } = await ctx.client.api.attestList({ query: { limit: str(ctx.opts.limit) ?? '20' } });
      return {
        data: attestations,
        table: {
          columns: ['id', 'schema', 'claims', 'issued', 'expires', 'revoked'],
          rows: attestations.map((a) => [a.id, a.schema, Object.entries(a.claims).map(([k, v]) => `${k}=${v.length > 20 ? `${v.slice(0, 17)}…` : v}`).join(' '), a.issuedAt.slice(0, 10), a.expiresAt.slice(0, 10), a.revoked ? 'yes' : '']),
        },
        empty: 'no attestations yet: `shroud attest schemas`',
      };
    },
  },
  {
    name: 'attest verify',
    summary: 'check one of your attestations: the issuer\'s signature, the fields, revocation, expiry',
    args: [{ name: 'id', description: 'the attestation id (`shroud attest mine`)' }],
    async run(ctx) {
      const { attestation } = await ctx.client.api.attestGet({ params: { id: need(ctx.args[0], 'id') } });
      const { revoked: _revoked, revokedAt: _revokedAt, ...signed } = attestation;
      const out = await ctx.client.api.attestVerify({ body: { attestation: signed } });
      return { data: out, fields: [['valid', out.valid], ['revoked', out.revoked], ['expired', out.expired], ['reasons', out.reasons.length ? out.reasons : null]] };
    },
  },
  ...groupCommands,
  // --- swaps, rewards, own tokens
  ...swapCommands,
  ...rewardsCommands,
  ...tokenCommands,
  ...shieldedCommands,
  ...bugCommands,
  // --- the assistant
  {
    name: 'ask',
    summary: 'ask the assistant (answers stream in; its suggestions are printed for you to type, never run)',
    args: [{ name: 'question', description: 'your question, quoted', variadic: true }],
    options: [{ flags: '-c, --conversation <id>', description: 'continue a conversation' }],
    async run(ctx) {
      const message = need(ctx.args.join(' ').trim() || undefined, 'question');
      const conversationId = str(ctx.opts.conversation);
      const a: AssistantAnswer = { conversationId: '', messageId: '', backend: '', model: '', text: '', citations: [], tools: [], suggestions: [] };
      for await (const e of chatEvents(ctx.client, { message, ...(conversationId ? { conversationId } : {}) })) {
        if (e.type === 'meta') Object.assign(a, { conversationId: e.conversationId, messageId: e.messageId, backend: e.backend, model: e.model });
        else if (e.type === 'delta') {
          a.text += e.text;
          ctx.io.stream?.(e.text);
        } else if (e.type === 'citation') a.citations.push(e.citation);
        else if (e.type === 'tool') a.tools.push(e.tool);
        else if (e.type === 'suggestion') a.suggestions.push({ command: e.command, description: e.description });
        else if (e.type === 'done') a.usage = e.usage;
        else a.error = { error: e.error, message: e.message };
      }
      if (a.error) throw new ShroudError(a.error.error, 502, a.error.message);
      const after: string[] = [];
      if (a.citations.length) after.push('', 'sources:', ...a.citations.map((c) => `  ${c.document} — ${c.section}`));
      if (a.suggestions.length) after.push('', 'to do it, type (nothing was run):', ...a.suggestions.map((x) => `  $ ${x.command}\n      ${x.description}`));
      after.push('', `conversation ${a.conversationId} (continue: shroud ask -c ${a.conversationId} "…")`);
      // Streamed: the text is on the screen already; what follows starts on a line of its own.
      return { data: a, text: ctx.io.stream ? `\n${after.join('\n')}` : [a.text, ...after].join('\n') };
    },
  },
  // --- toolkit
  ...Object.entries(TOOLKIT).map(
    ([group, ops]): CommandDef => ({
      name: `toolkit ${group}`,
      summary: `${group}: ${Object.keys(ops).join(', ')}`,
      args: [
        { name: 'op', description: Object.keys(ops).join(' | ') },
        { name: 'values', description: 'decimal numbers (points as x y)', optional: true, variadic: true },
      ],
      async run(ctx) {
        const [op, ...values] = ctx.args;
        const fn = ops[op ?? ''];
        if (!fn) throw usage(`toolkit ${group}: one of ${Object.keys(ops).join(', ')}`);
        const data = await fn(ctx.client, values);
        return { data, fields: flatFields(data) };
      },
    }),
  ),
  {
    name: 'toolkit prove',
    summary: 'a Groth16 proof of a circuit (default preimage) for inputs name=value',
    args: [{ name: 'inputs', description: 'name=value …', variadic: true }],
    options: [{ flags: '-c, --circuit <name>', description: 'the circuit', default: 'preimage' }],
    async run(ctx) {
      const inputs = Object.fromEntries(ctx.args.map((a) => a.split('=') as [string, string]));
      const out = await ctx.client.api.zkToolkitProofGenerate({ body: { circuit: str(ctx.opts.circuit) ?? 'preimage', inputs } });
      return { data: out, fields: [['publicSignals', out.publicSignals.join(', ')], ['proof', JSON.stringify(out.proof)]] };
    },
  },
  {
    name: 'toolkit verify',
    summary: 'verify a Groth16 proof: the JSON `toolkit prove --json` printed',
    args: [{ name: 'proof', description: '{"proof", "publicSignals"} as JSON' }],
    options: [{ flags: '-c, --circuit <name>', description: 'the circuit', default: 'preimage' }],
    async run(ctx) {
      let given: { proof: unknown; publicSignals: unknown };
      try {
        given = JSON.parse(need(ctx.args.join(' '), 'proof'));
      } catch {
        throw usage('proof: not JSON');
      }
      const out = await ctx.client.api.zkToolkitProofVerify({ body: { circuit: str(ctx.opts.circuit) ?? 'preimage', proof: given.proof as never, publicSignals: given.publicSignals as never } });
      return { data: out, text: out.valid ? 'valid' : 'NOT valid' };
    },
  },
];
