import { groups } from '#lib/http/groups.ts';
import { shroudCommand, wordOr } from './commands.ts';
import { isSafeName, parseSlots, type Slots } from './slots.ts';

/**
 * The common tasks, recognised in a message and answered with the command to run — the `shroud`
 * command where the terminal program has one, else curl against the API — filled in with the
 * user's values (amounts, names, ids) and, where a task needs one of the caller's own resources,
 * the one found by a read-only tool (a wallet by name, a file by name). Commands are only ever
 * suggestions: the service runs none of them. Secrets are never in a command: `shroud` asks.
 */
export interface Suggestion {
  command: string;
  description: string;
}

export interface WalletFact {
  id: string;
  chain: 'a' | 'b';
  name: string;
  address: string;
  isActive: boolean;
}
export interface FileFact {
  id: string;
  filename: string;
  size: number;
  createdAt: string;
}
export interface BridgeFact {
  id: string;
  token: string;
  amount: string;
  status: string;
  sourceTxHash: string | null;
  destTxHash: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface ShareLinkFact {
  id: string;
  fileId: string;
  filename: string | null;
  createdAt: string;
  expiresAt: string;
  status: 'active' | 'expired' | 'revoked';
  accessCount: number;
}
export type Need = 'wallets' | 'balances' | 'files' | 'proofs' | 'bridges' | 'shares';

/** A wallet's balances as the wallet_balances tool reads them (whole coins), or the error that stopped it. */
export interface BalanceFact {
  id: string;
  chain: 'a' | 'b';
  name: string;
  symbol: string;
  balance?: string;
  compressed?: string;
  error?: string;
}
export interface ProofFact {
  type?: string;
  createdAt?: string;
}

export interface IntentContext {
  baseUrl: string;
  hasRoute(method: string, path: string): boolean;
  wallets?: WalletFact[];
  files?: FileFact[];
  /** The caller's bridge transfers, newest first. */
  bridges?: BridgeFact[];
  /** The caller's share links, newest first. */
  shares?: ShareLinkFact[];
  balances?: BalanceFact[];
  proofs?: ProofFact[];
  message: string;
}

export interface IntentAnswer {
  /** One or two sentences that open the answer. */
  lead: string;
  suggestions: Suggestion[];
}

export interface Intent {
  id: string;
  test: RegExp;
  unless?: RegExp;
  /** The caller's resources this task needs (read through the tools, scoped by the service). */
  needs?: Need[];
  /** The answer is the caller's own records (the values): the documentation adds prose, never route rows. */
  reports?: true;
  /** Extra search terms, so the cited passages are the task's own. */
  terms: string;
  /** The documentation section that documents the task (`docs/<page>.md#<anchor>`): cited first when the page has it. */
  doc?: string;
  /** The route the command calls; when the deployment has no such route the task is reported unavailable. */
  route?: [string, string];
  build(slots: Slots, ctx: IntentContext): IntentAnswer;
}

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

const amountOr = (s: Slots, fallback: number) => (s.amount !== undefined && Number.isFinite(s.amount) && s.amount > 0 ? s.amount : fallback);
const quoted = (s: string) => `"${s}"`;

/** The wallet the message names, else the active one on the chain, else a placeholder. */
function walletFor(s: Slots, ctx: IntentContext, chain: 'a' | 'b' = s.chain ?? 'a'): { id: string; ref: string; label: string; found: boolean } {
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
function fileFor(s: Slots, ctx: IntentContext): { id: string; label: string; found: boolean } {
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
function balanceSentence(b: BalanceFact): string {
  const who = `Your ${b.chain === 'b' ? 'chain B ' : ''}wallet ${JSON.stringify(b.name)}`;
  if (b.error !== undefined || b.balance === undefined) return `${who}'s balance could not be read just now (${b.error ?? 'unavailable'}).`;
  return `${who} holds ${b.balance} ${b.symbol}${b.compressed !== undefined ? `; ${b.compressed} ${b.symbol} compressed` : ''}.`;
}

const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

/** "You have 2 files: "notes.txt" (10 B, 2026-11-23), …" — the newest five. */
function filesLead(files: FileFact[]): string {
  if (!files.length) return 'You have no files yet: `shroud upload <file>` encrypts and stores one.';
  const shown = files.slice(0, 5).map((f) => `${JSON.stringify(f.filename)} (${bytes(f.size)}, ${f.createdAt.slice(0, 10)})`);
  return `You have ${files.length} file${files.length === 1 ? '' : 's'}, newest first: ${shown.join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''}.`;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const noWallet = (w: { found: boolean }) => (w.found ? '' : ' You have no wallet yet: create one first (`shroud wallet create <name>`).');

export const intents: Intent[] = [
  {
    id: 'rate-limit',
    doc: 'docs/architecture.md#what-every-route-shares',
    test: /\brate[- ]?limit|\brequests? (per|a|each) minute\b|\bhow many requests\b|\b429\b|\btoo many requests\b/i,
    terms: 'rate limits per group per minute RATE_LIMITED Retry-After',
    build: (_s, ctx) => {
      const named = Object.entries(groups).filter(([g]) => new RegExp(`\\b${escapeRe(g)}\\b`, 'i').test(ctx.message));
      const all = named.length ? named : Object.entries(groups);
      const list = all.map(([g, v]) => `${g} ${v.rateLimit}`).join(', ');
      return {
        lead: `${named.length === 1 ? `The ${named[0]![0]} group allows ${named[0]![1].rateLimit} requests per minute` : `Requests per minute by group: ${list}`}, counted per client (the user when signed in, else the source IP) in fixed 60-second windows; past it the answer is 429 RATE_LIMITED with Retry-After.`,
        suggestions: [],
      };
    },
  },
  {
    id: 'register',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(register|sign ?up|create (an |a new )?account|new account)\b/i,
    terms: 'register username password identity zkId',
    route: ['POST', '/api/auth/register'],
    build: (s, ctx) => ({
      lead: `Register with a username and a password: \`shroud register\` asks for the password, makes your identity key pair and encrypts it on your side (createIdentity(password) in lib/client/identity.ts), and sends the identity fields.`,
      suggestions: [
        { command: shroudCommand('register', [wordOr(s.username ?? s.name, '<username>')]), description: 'create the account (it asks for the password)' },
      ],
    }),
  },
  {
    id: 'social-login',
    doc: 'docs/identity.md#social-login-apizkauth',
    test: /\b(log ?in|sign ?in|login)\b.*\b(google|github|discord|oauth|social)\b|\b(google|github|discord|oauth|social)\b.*\b(log ?in|sign ?in|login)\b/i,
    terms: 'social login zkauth provider oauth',
    route: ['GET', '/api/zkauth/login'],
    build: (s) => ({
      lead: `Social login goes through your browser: \`shroud login --provider\` opens the provider's page and waits on 127.0.0.1 for it to come back, then keeps the session.`,
      suggestions: [{ command: shroudCommand('login', [], { provider: s.provider ?? 'github' }), description: `sign in with ${s.provider ?? 'github'}` }],
    }),
  },
  {
    id: 'login',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(log ?in|sign ?in|login)\b/i,
    unless: /\b(fail|throttl|lock|brute|why)\w*/i,
    terms: 'login session cookie credentials',
    route: ['POST', '/api/auth/login'],
    build: (s) => ({
      lead: `Log in with your username and password (\`shroud login\` asks for the password); the session is kept for the next commands.`,
      suggestions: [{ command: shroudCommand('login', [wordOr(s.username ?? s.name, '<username>')]), description: 'log in (it asks for the password)' }],
    }),
  },
  {
    id: 'logout',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(log ?out|sign ?out)\b/i,
    terms: 'logout session',
    route: ['POST', '/api/auth/logout'],
    build: () => ({
      lead: 'Log out ends the session and forgets it on this machine.',
      suggestions: [{ command: shroudCommand('logout'), description: 'log out' }],
    }),
  },
  {
    id: 'upload-failed',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bupload\w*\b.*\b(fail|error|refus|reject|not work|401|413|422)\w*|\b(fail|error)\w*\b.*\bupload/i,
    needs: ['files'],
    terms: 'upload errors INVALID_PROOF CHECKSUM_MISMATCH FILE_TOO_LARGE',
    route: ['POST', '/api/storage/upload'],
    build: (_s, ctx) => ({
      lead: `An upload is refused with 401 INVALID_PROOF when the proof does not verify against the password circuit with publicSignals[0] equal to the commitment, 422 CHECKSUM_MISMATCH when the checksum does not match the bytes received, 413 FILE_TOO_LARGE above 100 MB, and 429 past 30 storage requests a minute; a failed upload leaves nothing behind, so retry it.${ctx.files ? ` You have ${ctx.files.length} stored file${ctx.files.length === 1 ? '' : 's'}.` : ''}`,
      suggestions: [{ command: shroudCommand('files'), description: 'list your stored files to see what arrived' }],
    }),
  },
  {
    id: 'share-links',
    reports: true,
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(my|which|what|when|list|show)\b.*\b(shared|share ?links?)\b|\b(shared|share ?links?)\b.*\b(expire\w*|active|revoke\w*|opened|accessed|list)\b|\b(revoke|cancel|disable|stop)\w*\b.*\bshar(ed|e ?links?|ing)\b/i,
    unless: /\bfor \d+\s*(h|hours?|days?|d|minutes?|m)\b/i,
    needs: ['shares'],
    terms: 'share links list expiresAt revoke',
    route: ['GET', '/api/storage/shares'],
    build: (s, ctx) => {
      const own = ctx.shares ?? [];
      const lower = ctx.message.toLowerCase();
      // A link named by its file (the message names it) or by its id, else all of them.
      const named = own.filter((l) => (l.filename && l.filename.length >= 3 && lower.includes(l.filename.toLowerCase())) || lower.includes(l.id));
      const shown = named.length ? named : own;
      const active = shown.filter((l) => l.status === 'active');
      const revoke = /\b(revoke|cancel|stop|unshare|disable)\b/i.test(ctx.message);
      const safeId = (id: string) => (/^[0-9a-z]{21}$/.test(id) ? id : '<link id>');
      if (!own.length)
        return {
          lead: 'You have no share links (links made before share links were listed are not shown; they lapse on their own within 30 days).',
          suggestions: [{ command: shroudCommand('shares'), description: 'list your share links' }],
        };
      // File names are the user's data: quoted as JSON strings in the text, never in a command.
      const describe = (l: ShareLinkFact) =>
        `${l.filename === null ? `file ${l.fileId} (deleted)` : JSON.stringify(l.filename)}: ${l.status === 'active' ? `expires ${l.expiresAt}` : l.status === 'expired' ? `expired ${l.expiresAt}` : 'revoked'}, opened ${l.accessCount} time${l.accessCount === 1 ? '' : 's'}`;
      const lead = `${named.length ? 'That share link' : `You have ${own.length} share link${own.length === 1 ? '' : 's'}, ${active.length} active`}: ${shown.slice(0, 5).map(describe).join('; ')}${shown.length > 5 ? '; …' : ''}.`;
      const target = active[0];
      const suggestions = [{ command: shroudCommand('shares'), description: 'list your share links' }];
      if (revoke && target)
        suggestions.push({ command: shroudCommand('shares revoke', [safeId(target.id)]), description: 'revoke that share link (run it yourself)' });
      return { lead, suggestions };
    },
  },
  {
    id: 'list-files',
    reports: true,
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(list|show|what|which|see)\b.*\b(my )?files\b|\bmy files\b|\bhow many files\b/i,
    needs: ['files'],
    terms: 'list files storage',
    route: ['GET', '/api/storage/files'],
    build: (_s, ctx) => ({
      lead: ctx.files ? filesLead(ctx.files) : '`shroud files` lists your files, newest first.',
      suggestions: [{ command: shroudCommand('files'), description: 'list your files' }],
    }),
  },
  {
    id: 'share',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bshare\b|\bshare ?link\b/i,
    needs: ['files'],
    terms: 'share link expiresIn shareUrl',
    route: ['POST', '/api/storage/share'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      const hours = s.hours && s.hours >= 1 && s.hours <= 720 ? s.hours : 24;
      return {
        lead: `To share ${f.label} for ${hours} hour${hours === 1 ? '' : 's'}, create a share link (\`--expires\` in hours, up to 720: the link lives between one minute and 30 days).`,
        suggestions: [{ command: shroudCommand('share', [f.id], { expires: hours }), description: `share link valid ${hours} h` }],
      };
    },
  },
  {
    id: 'upload',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bupload\b/i,
    terms: 'upload multipart proof commitment checksum encryptFile',
    route: ['POST', '/api/storage/upload'],
    build: () => ({
      lead: 'Files are encrypted on your side first: `shroud upload` encrypts the file with your password, proves you know it (Groth16) and uploads the ciphertext in one go (StorageClient in lib/client does the same for programs).',
      suggestions: [{ command: shroudCommand('upload', ['<file>']), description: 'encrypt, prove and upload a file (it asks for the password)' }],
    }),
  },
  {
    id: 'download',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bdownload\b/i,
    needs: ['files'],
    terms: 'download proof fileId X-ZK-Proof',
    route: ['POST', '/api/storage/download'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      return {
        lead: `To download ${f.label}, prove you know its password: \`shroud download\` makes the proof, checks the bytes against their CID and decrypts them on your side.`,
        suggestions: [{ command: shroudCommand('download', [f.id]), description: 'download and decrypt (it asks for the password)' }],
      };
    },
  },
  {
    id: 'delete-file',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(delete|remove)\b.*(\bfile\b|\b[\w-]+\.[a-z0-9]{1,5}\b)/i,
    needs: ['files'],
    terms: 'delete file unpin',
    route: ['DELETE', '/api/storage/files/:fileId'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      return {
        lead: `Deleting ${f.label} cannot be undone; run it yourself if you mean it.`,
        suggestions: [{ command: shroudCommand('rm', [f.id]), description: 'delete the file (irreversible)' }],
      };
    },
  },
  {
    id: 'list-wallets',
    reports: true,
    doc: 'docs/wallets.md#wallets-apiwallets',
    test: /\b(list|show|what|which|see)\b.*\bwallets\b|\bmy wallets\b|\bhow many wallets\b/i,
    unless: /\b(create|make|new|import|balances?)\b/i,
    needs: ['wallets'],
    terms: 'wallets list chain active',
    route: ['GET', '/api/wallets'],
    build: (_s, ctx) => {
      const own = ctx.wallets ?? [];
      if (!own.length)
        return {
          lead: 'You have no wallets yet: `shroud wallet create <name>` makes one.',
          suggestions: [{ command: shroudCommand('wallets'), description: 'your wallets' }],
        };
      const shown = own
        .slice(0, 6)
        .map((w) => `${JSON.stringify(w.name)} on chain ${w.chain.toUpperCase()}${w.isActive ? ' (active)' : ''}, address ${w.address}`);
      return {
        lead: `You have ${own.length} wallet${own.length === 1 ? '' : 's'}: ${shown.join('; ')}${own.length > 6 ? `; and ${own.length - 6} more` : ''}.`,
        suggestions: [{ command: shroudCommand('wallets'), description: 'your wallets' }],
      };
    },
  },
  {
    id: 'import-wallet',
    doc: 'docs/wallets.md#wallets-apiwallets',
    test: /\bimport\b.*\b(wallet|key)\b/i,
    terms: 'import wallet secretKey',
    route: ['POST', '/api/wallets/import'],
    build: (s, ctx) => ({
      lead: `Import a key as a wallet: chain A takes the base58 secret key or solana-keygen's JSON array, chain B a 0x private key and a password; the command asks for them, so they stay out of your shell history.`,
      // The key (and a chain B password) is asked for by the command: never on the command line.
      suggestions: [
        {
          command: shroudCommand('wallet import', [wordOr(s.name, 'imported')], { chain: s.chain ?? 'a' }),
          description: 'import a wallet (it asks for the key)',
        },
      ],
    }),
  },
  {
    id: 'create-wallet',
    doc: 'docs/wallets.md#wallets-apiwallets',
    test: /\b(create|new|make|add|open)\b.*\bwallet\b/i,
    terms: 'create wallet chain name',
    route: ['POST', '/api/wallets'],
    build: (s, ctx) => {
      const chain = s.chain ?? 'a';
      const name = s.name ?? 'main';
      return {
        lead: `Create a chain ${chain.toUpperCase()} wallet named ${quoted(name)}${chain === 'b' ? ' (chain B wallets need a password of 8 or more characters: the command asks for it)' : ''}; your first wallet on a chain becomes the active one.`,
        suggestions: [{ command: shroudCommand('wallet create', [name], { chain }), description: `create wallet ${name}` }],
      };
    },
  },
  {
    id: 'airdrop',
    doc: 'docs/wallets.md#wallets-apiwallets',
    test: /\b(airdrop|faucet)\b|\bfund\b.*\bwallet\b/i,
    needs: ['wallets'],
    terms: 'airdrop faucet localnet devnet mainnet',
    route: ['POST', '/api/wallets/:id/airdrop'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const amount = Math.min(amountOr(s, 1), 100);
      return {
        lead: `Airdrop ${amount} to ${w.label} from the chain's faucet (localnet and devnet only, at most 100 at a time; mainnet answers 403).${noWallet(w)}`,
        suggestions: [
          // `shroud airdrop` funds either chain's wallet (chain B: STRK, or ETH with --token).
          {
            command: shroudCommand('airdrop', [amount], { wallet: w.ref, token: s.chain === 'b' && /\bETH\b/i.test(ctx.message) ? 'ETH' : undefined }),
            description: `airdrop ${amount}`,
          },
        ],
      };
    },
  },
  {
    id: 'decompress',
    doc: 'docs/wallets.md#compression-apicompression',
    test: /\bdecompress/i,
    needs: ['wallets'],
    terms: 'decompress native token compressed',
    route: ['POST', '/api/compression/decompress-native'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const amount = amountOr(s, 1);
      const mint = s.addresses[0];
      return {
        lead: `Decompress ${amount}${mint ? ' tokens' : ' SOL'} from ${w.label} back into its ordinary balance.${noWallet(w)}`,
        suggestions: [
          mint
            ? { command: shroudCommand('decompress', [amount], { wallet: w.ref, token: mint }), description: `decompress ${amount} tokens` }
            : { command: shroudCommand('decompress', [amount], { wallet: w.ref }), description: `decompress ${amount} SOL` },
        ],
      };
    },
  },
  {
    id: 'compress',
    doc: 'docs/wallets.md#compression-apicompression',
    test: /\bcompress/i,
    unless: /\bcompressed[- ]balance|\bbalance\b|\bhow much\b.*\bcompressed\b/i,
    needs: ['wallets'],
    terms: 'compress native token compression',
    route: ['POST', '/api/compression/compress-native'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const amount = amountOr(s, 1);
      const mint = s.addresses[0];
      return {
        lead: `Compress ${amount}${mint ? ' tokens of that mint' : ' SOL'} from ${w.label}: amounts are whole units (1.1 SOL is exactly 1100000000 lamports); the fees are paid from the same wallet.${noWallet(w)}`,
        suggestions: [
          mint
            ? { command: shroudCommand('compress', [amount], { wallet: w.ref, token: mint }), description: `compress ${amount} tokens` }
            : { command: shroudCommand('compress', [amount], { wallet: w.ref }), description: `compress ${amount} SOL` },
        ],
      };
    },
  },
  {
    id: 'balance',
    reports: true,
    doc: 'docs/wallets.md#wallets-apiwallets',
    test: /\bbalances?\b|\bhow much\b/i,
    needs: ['wallets', 'balances'],
    terms: 'balance wallet compressed-balance',
    route: ['GET', '/api/wallets/:id/balance'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const compressed = /compress/i.test(ctx.message);
      // The values, read by the wallet_balances tool: the wallet the message names, else every wallet (at most 5).
      const own = ctx.balances ?? [];
      const lower = ctx.message.toLowerCase();
      const named = own.filter(
        (b) =>
          b.id === s.uuid ||
          (b.name.length >= 3 && new RegExp(`\\b${escapeRe(b.name.toLowerCase())}\\b`).test(lower)) ||
          (s.name && b.name.toLowerCase() === s.name.toLowerCase()),
      );
      const shown = (named.length ? named : own).slice(0, 5);
      const lead = shown.length
        ? `${shown.map(balanceSentence).join(' ')}${own.length > shown.length && !named.length ? ` (${own.length - shown.length} more: \`shroud wallets\`.)` : ''}`
        : `You have no wallet yet: create one first (\`shroud wallet create <name>\`).`;
      return {
        lead:
          w.found || shown.length
            ? lead
            : `${compressed ? 'The compressed balance' : 'The balance'} of ${w.label} is shown by \`shroud balance\`.${noWallet(w)}`,
        suggestions: [
          {
            command: shroudCommand('balance', [], { wallet: shown.length === 1 ? wordOr(shown[0]!.name, shown[0]!.id) : w.ref }),
            description: compressed ? 'ordinary and compressed balance' : 'balance (ordinary and compressed)',
          },
        ],
      };
    },
  },
  {
    id: 'bridge-history',
    reports: true,
    doc: 'docs/bridge.md#bridge-apibridge',
    test: /\b(list|show|what|which|all|my)\b.*\bbridge (transfers|history)\b|\bbridge history\b|\bhave i bridged\b/i,
    needs: ['bridges'],
    terms: 'bridge history transfers status',
    route: ['GET', '/api/bridge/history'],
    build: (_s, ctx) => {
      const own = ctx.bridges ?? [];
      if (!own.length)
        return {
          lead: 'You have no bridge transfers yet: `shroud bridge` starts one.',
          suggestions: [{ command: shroudCommand('bridge history'), description: 'your bridge transfers' }],
        };
      const shown = own.slice(0, 5).map((b) => `${b.amount} ${b.token} ${b.status} (started ${b.createdAt.slice(0, 16).replace('T', ' ')})`);
      return {
        lead: `You have ${own.length} bridge transfer${own.length === 1 ? '' : 's'}, newest first: ${shown.join('; ')}${own.length > 5 ? `; and ${own.length - 5} more` : ''}.`,
        suggestions: [{ command: shroudCommand('bridge history'), description: 'your bridge transfers' }],
      };
    },
  },
  {
    id: 'bridge-status',
    reports: true,
    doc: 'docs/bridge.md#bridge-apibridge',
    test: /\b(my|the|this|that)\b.*\bbridg\w*\b.*\b(doing|status|state|stuck|done|arrived?|happen\w*|going|progress|where)\b|\b(status|state|progress)\b.*\bbridg/i,
    needs: ['bridges'],
    terms: 'bridge status history transfer',
    route: ['GET', '/api/bridge/status/:id'],
    build: (s, ctx) => {
      const own = ctx.bridges ?? [];
      const named = s.uuid ? own.find((b) => b.id === s.uuid) : undefined;
      const b = named ?? own[0];
      if (!b) return { lead: 'You have no bridge transfer yet: start one with `shroud bridge`.', suggestions: [] };
      // Status and hashes come from the record; only the id (a UUID the service made) reaches a command.
      const hashes = [b.sourceTxHash ? `source transaction ${b.sourceTxHash}` : '', b.destTxHash ? `destination transaction ${b.destTxHash}` : '']
        .filter(Boolean)
        .join(', ');
      const safeId = /^[0-9a-f-]{36}$/i.test(b.id) ? b.id : '<bridge id>';
      return {
        lead: `Your ${named ? '' : 'latest '}bridge transfer of ${b.amount} ${b.token} (started ${b.createdAt}) is ${b.status}${hashes ? `: ${hashes}` : ''}; last updated ${b.updatedAt}.`,
        suggestions: [{ command: shroudCommand('bridge status', [safeId]), description: 'bridge transfer status' }],
      };
    },
  },
  {
    id: 'bridge',
    doc: 'docs/bridge.md#bridge-apibridge',
    test: /\bbridg/i,
    needs: ['wallets'],
    terms: 'bridge initiate deposit chain B destAddress route',
    route: ['POST', '/api/bridge/initiate'],
    build: (s, ctx) => {
      const fromEthereum = /\b(ethereum|eth|usdc|usdt|l1|starkgate)\b/i.test(ctx.message);
      const route = fromEthereum ? 'ethereum-chainb' : 'chaina-chainb';
      const token = wordOr(s.unit, fromEthereum ? 'ETH' : 'SOL');
      const own = (ctx.wallets ?? []).filter((w) => w.chain === 'b');
      const dest = own.find((w) => w.isActive) ?? own[0];
      const w = walletFor(s, ctx, 'a');
      return {
        lead: fromEthereum
          ? `Bridge from Ethereum through StarkGate: the command records the transfer and prints where to send the deposit from your Ethereum wallet; attach its transaction and the watcher completes it on chain B.`
          : `Bridge to chain B through the Hyperlane warp route: with \`--wallet\` your chain A ${w.label} sends it now and the transfer completes on its own; \`shroud bridge status\` follows it.${dest ? ` Your chain B wallet ${quoted(dest.name)} is the destination.` : ' You have no chain B wallet: create one (`shroud wallet create <name> --chain b`) or give any chain B address.'}`,
        suggestions: [
          {
            command: shroudCommand('bridge', [route, amountOr(s, 1), token], {
              to: dest && /^0x[0-9a-fA-F]{1,64}$/.test(dest.address) ? dest.address : '<chain B address>',
              ...(fromEthereum ? {} : { wallet: w.ref }),
            }),
            description: `bridge ${amountOr(s, 1)} ${token} to chain B`,
          },
        ],
      };
    },
  },
  {
    id: 'swap',
    doc: 'docs/swap.md#swap-apiswap',
    test: /\b(swap|exchange|trade)\b/i,
    needs: ['wallets'],
    terms: 'swap quote execute slippage pair one-time sweep',
    route: ['POST', '/api/swap/quote'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const amount = amountOr(s, 1);
      const toUsd = !/\b(sUSD|USD)\b.*\b(to|for|into)\b.*\bSOL\b/i.test(ctx.message);
      const [from, to] = toUsd ? ['SOL', 'sUSD'] : ['sUSD', 'SOL'];
      return {
        lead: `Quote the swap of ${amount} ${from} for ${to} from ${w.label} (the quote prints what you get, the fee and the price impact), then execute it by its quote id.${noWallet(w)}`,
        suggestions: [
          { command: shroudCommand('swap quote', [from, to, amount], { wallet: w.ref }), description: `quote ${amount} ${from} for ${to}` },
          { command: shroudCommand('swap execute', ['<quoteId>']), description: 'do the quoted swap' },
        ],
      };
    },
  },
  {
    id: 'shielded',
    doc: 'docs/transfer.md#shielded-transfers-apitransfer',
    test: /\b(shielded|private(ly)?|anonymous(ly)?)\b.*\b(transfer|deposit|send|pool|withdraw)|\bwithdraw\b.*\bnote\b/i,
    needs: ['wallets'],
    terms: 'shielded pool deposit note withdraw proof recipient',
    route: ['POST', '/api/transfer/deposit'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const withdraw = /\bwithdraw/i.test(ctx.message);
      return {
        lead: withdraw
          ? 'Withdraw a deposit to any address with its note: the command asks for the note, proves here that it is in the pool, and sends the proof without your session.'
          : `Deposit a pool's fixed amount from ${w.label}: the command prints a note, once; keep it secret, it is what withdraws the deposit.${noWallet(w)}`,
        suggestions: withdraw
          ? [{ command: shroudCommand('shielded withdraw', ['<recipient address>']), description: 'withdraw a note (it asks for the note)' }]
          : [
              { command: shroudCommand('shielded pools'), description: 'the pools and their amounts' },
              { command: shroudCommand('shielded deposit', ['<pool>'], { wallet: w.ref }), description: 'deposit into a pool' },
            ],
      };
    },
  },
  {
    id: 'rewards',
    doc: 'docs/rewards.md#rewards-apirewards',
    // `points` alone would take the toolkit's curve points: only with rewards' own words.
    test: /\b(rewards?|leaderboard)\b|\b(my|reward|earned?)\s+points\b/i,
    terms: 'rewards points epoch leaderboard claim',
    route: ['GET', '/api/rewards/me'],
    build: (_s, ctx) => {
      const claim = /\bclaim/i.test(ctx.message);
      return {
        lead: claim
          ? "Claim an ended epoch's reward into a chain A wallet: `shroud rewards` lists what is claimable."
          : 'Your points this epoch, your rank and what ended epochs owe you.',
        suggestions: claim
          ? [{ command: shroudCommand('rewards claim', ['<epoch>']), description: 'claim an epoch' }]
          : [
              { command: shroudCommand('rewards'), description: 'your points' },
              { command: shroudCommand('rewards leaderboard'), description: 'the leaderboard' },
            ],
      };
    },
  },
  {
    id: 'transfer',
    doc: 'docs/wallets.md#compression-apicompression',
    test: /\b(transfer|send|pay)\b/i,
    needs: ['wallets'],
    terms: 'compressed transfer mint recipient',
    route: ['POST', '/api/compression/transfer'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const amount = amountOr(s, 1);
      const [mint, to] = s.addresses.length >= 2 ? s.addresses : [undefined, s.addresses[0]];
      return {
        lead: `A compressed token transfer of ${amount} from ${w.label} to ${to ? 'that address' : 'the recipient'} (compressed transfers move tokens of a mint; compress them first).${noWallet(w)}`,
        suggestions: [
          { command: shroudCommand('send', [mint ?? '<mint>', to ?? '<recipient address>', amount], { wallet: w.ref }), description: `transfer ${amount}` },
        ],
      };
    },
  },
  {
    id: 'create-token',
    doc: 'docs/wallets.md#compression-apicompression',
    test: /\b(create|new|make)\b.*\b(token|mint)\b/i,
    needs: ['wallets'],
    terms: 'create-token mint decimals mint-to',
    route: ['POST', '/api/compression/create-token'],
    build: (s, ctx) => {
      const w = walletFor(s, ctx);
      const decimals = s.numbers.map(Number).find((n) => n <= 9) ?? 9;
      return {
        lead: `Create a token mint with ${decimals} decimals; ${w.label} becomes its mint authority and can mint with \`shroud token mint <mint> <amount>\`.${noWallet(w)}`,
        suggestions: [{ command: shroudCommand('token create', [], { decimals, wallet: w.ref }), description: 'create a token mint' }],
      };
    },
  },
  {
    id: 'submit-identity-proof',
    doc: 'docs/identity.md#chain-b-identity-proofs-apichainb',
    test: /\b(identity proof|submit[- ]proof|chain ?b proof|prove my identity)\b/i,
    terms: 'submit-proof identity signature nonce timestamp chain B registry',
    route: ['POST', '/api/chainb/submit-proof'],
    build: () => ({
      lead: 'Your identity key, unlocked in the terminal with your account password (it never leaves it), signs a fresh statement and the service records it on chain B and in your proof history; `shroud chainb proof <proofId>` reads it back.',
      suggestions: [{ command: shroudCommand('chainb prove'), description: 'submit an identity proof (it asks for your account password)' }],
    }),
  },
  {
    id: 'stark-proof',
    doc: 'docs/identity.md#social-login-apizkauth',
    test: /\bstark\b/i,
    terms: 'STARK proof zkauth prove session',
    route: ['POST', '/api/zkauth/prove'],
    build: () => ({
      lead: 'A signed-in social-login session gets its STARK proof of the session key (POST /api/zkauth/prove; a client-held key sends its own proof), recorded on chain B; `shroud proofs` shows it and `shroud proofs verify` checks it again.',
      suggestions: [{ command: shroudCommand('proofs prove'), description: 'prove the session key (STARK) and record it on chain B' }],
    }),
  },
  {
    id: 'poseidon',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bposeidon\b/i,
    terms: 'hash poseidon zk-toolkit',
    route: ['POST', '/api/zk-toolkit/hash/poseidon'],
    build: (s) => {
      const inputs = s.numbers.slice(0, 16);
      return {
        lead: 'Poseidon hashes BN254 field elements (decimal numbers, 1–16 inputs); the command below computes it.',
        suggestions: [{ command: shroudCommand('toolkit hash', ['poseidon', ...(inputs.length ? inputs : ['1', '2'])]), description: 'Poseidon hash' }],
      };
    },
  },
  {
    id: 'mimc',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bmimc\b/i,
    terms: 'hash mimc mimc7 key',
    route: ['POST', '/api/zk-toolkit/hash/mimc'],
    build: (s) => ({
      lead: 'MiMC7 (91 rounds) hashes a field element with an optional key; the command below computes it.',
      suggestions: [{ command: shroudCommand('toolkit hash', ['mimc', s.numbers[0] ?? '12', s.numbers[1] ?? '0']), description: 'MiMC hash' }],
    }),
  },
  {
    id: 'pedersen',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bpedersen\b/i,
    terms: 'hash pedersen encoding',
    route: ['POST', '/api/zk-toolkit/hash/pedersen'],
    build: (s, ctx) => {
      const text = /["'`]([A-Za-z0-9 _.-]{1,64})["'`]/.exec(ctx.message)?.[1] ?? s.numbers[0] ?? 'Hello';
      // The command joins its words with single spaces: the text goes in as its words.
      return {
        lead: 'The Pedersen hash takes bytes (UTF-8 text or 0x hex, 1–256 bytes); the command below computes it.',
        suggestions: [{ command: shroudCommand('toolkit hash', ['pedersen', ...text.trim().split(/\s+/)]), description: 'Pedersen hash' }],
      };
    },
  },
  {
    id: 'shamir',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bshamir\b|\bsplit\b.*\bsecret\b|\bsecret shar/i,
    terms: 'shamir split combine threshold shares',
    route: ['POST', '/api/zk-toolkit/shamir/split'],
    build: (s, ctx) => {
      const [secret, a, b] = s.numbers;
      const nums = [a, b]
        .map(Number)
        .filter((n) => n >= 2 && n <= 255)
        .sort((x, y) => x - y);
      const threshold = nums[0] ?? 3;
      const shares = nums[1] ?? Math.max(5, threshold);
      return {
        lead: `Split the secret into ${shares} shares, any ${threshold} of which recover it (\`shroud toolkit shamir combine\`).`,
        suggestions: [{ command: shroudCommand('toolkit shamir', ['split', secret ?? '<secret>', threshold, shares]), description: 'Shamir split' }],
      };
    },
  },
  {
    id: 'field',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\b(field|modular|mod p)\b.*\b(add|sub|subtract|mul|multiply|div|divide|inverse|inv|sqrt|pow|power)\b|\b(add|sub|subtract|mul|multiply|div|divide|inverse|inv|sqrt|pow|power)\b.*\bfield\b/i,
    terms: 'field add sub mul div inv sqrt pow BN254 prime',
    route: ['POST', '/api/zk-toolkit/field/add'],
    build: (s, ctx) => {
      const op = /\bsub|subtract/i.test(ctx.message)
        ? 'sub'
        : /\bmul|multiply/i.test(ctx.message)
          ? 'mul'
          : /\bdiv/i.test(ctx.message)
            ? 'div'
            : /\binv/i.test(ctx.message)
              ? 'inv'
              : /\bsqrt/i.test(ctx.message)
                ? 'sqrt'
                : /\bpow/i.test(ctx.message)
                  ? 'pow'
                  : 'add';
      const [a = '1', b = '2'] = s.numbers;
      const values = op === 'inv' || op === 'sqrt' ? [a] : [a, b];
      return {
        lead: `Field ${op} works modulo the BN254 scalar prime, on decimal numbers below it; the command below computes it.`,
        suggestions: [{ command: shroudCommand('toolkit field', [op, ...values]), description: `field ${op}` }],
      };
    },
  },
  {
    id: 'proof-history',
    reports: true,
    doc: 'docs/identity.md#chain-b-identity-proofs-apichainb',
    test: /\b(my )?proof(s)? history\b|\bmy proofs\b|\bproofs (have i|did i)\b/i,
    needs: ['proofs'],
    terms: 'proof history identity stark',
    build: (_s, ctx) => {
      const own = ctx.proofs ?? [];
      const latest = own[0];
      return {
        lead: own.length
          ? `You have ${own.length} recorded proof${own.length === 1 ? '' : 's'} (identity proofs on chain B and STARK session proofs)${latest?.type ? `; the latest is a ${latest.type} proof${latest.createdAt ? ` from ${latest.createdAt}` : ''}` : ''}.`
          : 'You have no recorded proofs yet: identity proofs on chain B and STARK session proofs are recorded when you make them.',
        suggestions: [],
      };
    },
  },
  {
    id: 'bug-report',
    doc: 'docs/architecture.md#the-route-groups',
    test: /\b(report|file)\b.*\bbug\b|\bbug report\b/i,
    terms: 'bug report title description severity',
    route: ['POST', '/api/bug-reports'],
    build: (_s, ctx) => ({
      lead: 'Send a bug report with a title and a description (5 per minute).',
      suggestions: [{ command: shroudCommand('bug', ['<title>', '<what happened>'], { severity: 'medium' }), description: 'report a bug' }],
    }),
  },
  {
    id: 'session',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(am i (logged|signed) in|who am i|my session)\b/i,
    terms: 'session authenticated me',
    route: ['GET', '/api/auth/session'],
    build: () => ({
      lead: '`shroud whoami` says who this session is signed in as.',
      suggestions: [{ command: shroudCommand('whoami'), description: 'who you are signed in as' }],
    }),
  },
];

export const intentById = (id: string): Intent | undefined => intents.find((i) => i.id === id);

/** The first task whose pattern the message matches (the list is ordered from specific to general). */
export function matchIntent(message: string): Intent | undefined {
  return intents.find((i) => i.test.test(message) && !(i.unless?.test(message) ?? false));
}

export { parseSlots, isSafeName };
