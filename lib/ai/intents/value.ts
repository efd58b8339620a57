import type { Intent } from '../intent-types.ts';
import { amountOr, noWallet, quoted, walletFor } from '../intent-helpers.ts';
import { shroudCommand, wordOr } from '../commands.ts';

/** Bridge, swap, shielded transfers, rewards. */
export const valueIntents: Intent[] = [
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
];
