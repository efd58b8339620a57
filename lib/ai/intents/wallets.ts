import type { Intent } from '../intent-types.ts';
import { amountOr, balanceSentence, escapeRe, noWallet, quoted, walletFor } from '../intent-helpers.ts';
import { shroudCommand, wordOr } from '../commands.ts';

/** Wallets, airdrops, compression, balances. */
export const walletIntents: Intent[] = [
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
];

/** Compressed transfers and token mints. */
export const tokenIntents: Intent[] = [
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
];
