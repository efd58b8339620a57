/**
 * Wallets of both chains (functions/wallets, and chain B's transfer from functions/chainb): list,
 * create, airdrop, balance, send. Importing a key is tokens.ts's; compression is compression.ts's.
 */
import type { CommandContext, CommandDef, OptionDef } from './framework.ts';
import {
  amountOf,
  need,
  newSecret,
  secret,
  str,
  STRK_DECIMALS,
  submittedFields,
  walletFields,
  usage,
  walletByNameOrId,
  walletOf,
  walletOption,
  wholeUnits,
} from './shared.ts';

const chainOption: OptionDef = { flags: '-c, --chain <chain>', description: 'a or b: which chain, when both have a wallet of that name' };
function chainOf(ctx: CommandContext): 'a' | 'b' | undefined {
  const chain = str(ctx.opts.chain);
  if (chain !== undefined && chain !== 'a' && chain !== 'b') throw usage('--chain: a or b');
  return chain;
}
type Wallet = { id: string; chain: 'a' | 'b'; name: string; address: string; isActive: boolean; createdAt: string };
const shownFields = (w: Wallet): [string, unknown][] => [...walletFields(w), ['created', w.createdAt]];

export const walletCommands: CommandDef[] = [
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
    options: [
      { flags: '-c, --chain <chain>', description: 'a or b', default: 'a' },
      { flags: '-p, --password <password>', description: "chain B only: the new wallet's key password (asked for twice when left out)" },
    ],
    async run(ctx) {
      const chain = (str(ctx.opts.chain) ?? 'a') as 'a' | 'b';
      const password = chain === 'b' ? await newSecret(ctx, 'password', `chain B wallet password for ${need(ctx.args[0], 'name')}`) : undefined;
      const { wallet } = await ctx.client.api.walletsCreate({ body: { chain, name: need(ctx.args[0], 'name'), ...(password ? { password } : {}) } });
      return {
        data: wallet,
        fields: walletFields(wallet),
      };
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
      const out = await ctx.client.api.walletsAirdrop({
        params: { id: w.id },
        body: { amount: amountOf(ctx.args[0]), ...(token ? { token: token as 'STRK' | 'ETH' } : {}) },
      });
      return {
        data: out,
        fields: [
          ['received', `${out.formatted}${w.chain === 'b' ? ` ${token ?? 'STRK'}` : ''}`],
          ['wallet', `${w.name} (chain ${w.chain.toUpperCase()})`],
          ['tx', out.txHash],
        ],
      };
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
        return {
          data: plain,
          fields: [
            ['wallet', `${w.name} (chain B)`],
            ['address', plain.address],
            ['balance', `${plain.formatted} ${token ?? 'STRK'}`],
          ],
        };
      }
      const [plain, compressed] = await Promise.all([
        ctx.client.api.walletsBalance({ params: { id: w.id }, query: token ? { mint: token } : {} }),
        token
          ? ctx.client.api.compressionCompressedTokenBalance({ params: { walletId: w.id, mint: token } })
          : ctx.client.api.compressionCompressedBalance({ params: { walletId: w.id } }),
      ]);
      return {
        data: { ...plain, compressed },
        fields: [
          ['wallet', `${w.name} (chain A)`],
          ['address', plain.address],
          ['balance', plain.formatted],
          ['compressed', compressed.formatted],
        ],
      };
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
        const out = await ctx.client.api.chainbTransfer({
          body: { walletId: w.id, token, recipientAddress: to, amount: need(ctx.args[2], 'amount'), password },
        });
        const fee: [string, unknown][] =
          'fee' in out ? [['fee', `${wholeUnits(out.fee, STRK_DECIMALS)} STRK`]] : [['status', `${out.status}: the chain has not confirmed it yet`]];
        return {
          data: out,
          fields: [['sent', `${ctx.args[2]} ${token}`], ['from', `${w.name} (chain B)`], ['to', to], ...fee, ['tx', out.txHash], ['explorer', out.explorerUrl]],
        };
      }
      const out = await ctx.client.api.compressionTransfer({ body: { walletId: w.id, mint: token, to, amount } });
      if ('status' in out) return submittedFields(out);
      // The answer is in the token's smallest units: its decimals come with the wallet's balance of it.
      const left = await ctx.client.api.compressionCompressedTokenBalance({ params: { walletId: w.id, mint: token } });
      return {
        data: out,
        fields: [
          ['sent', wholeUnits(out.amount, left.decimals)],
          ['to', out.to],
          ['left (compressed)', left.formatted],
          ['tx', out.txHash],
        ],
      };
    },
  },
  {
    name: 'wallet show',
    summary: 'one wallet: its chain, address, whether it is the active one',
    args: [{ name: 'wallet', description: 'its name or id (`shroud wallets`)' }],
    options: [chainOption],
    async run(ctx) {
      const w = await walletByNameOrId(ctx, need(ctx.args[0], 'wallet'), chainOf(ctx));
      const { wallet } = await ctx.client.api.walletsGet({ params: { id: w.id } });
      return { data: wallet, fields: shownFields(wallet) };
    },
  },
  {
    name: 'wallet rename',
    summary: 'give a wallet another name (unique per chain, ignoring case)',
    args: [
      { name: 'wallet', description: 'its name or id (`shroud wallets`)' },
      { name: 'name', description: 'the new name' },
    ],
    options: [chainOption],
    async run(ctx) {
      const w = await walletByNameOrId(ctx, need(ctx.args[0], 'wallet'), chainOf(ctx));
      const { wallet } = await ctx.client.api.walletsUpdate({ params: { id: w.id }, body: { name: need(ctx.args[1], 'name') } });
      return { data: wallet, fields: [['renamed', `${w.name} → ${wallet.name}`], ...shownFields(wallet).slice(1)] };
    },
  },
  {
    name: 'wallet use',
    summary: "make a wallet its chain's active one (what commands use without --wallet, on chain A)",
    args: [{ name: 'wallet', description: 'its name or id (`shroud wallets`)' }],
    options: [chainOption],
    async run(ctx) {
      const w = await walletByNameOrId(ctx, need(ctx.args[0], 'wallet'), chainOf(ctx));
      const { wallet } = await ctx.client.api.walletsUpdate({ params: { id: w.id }, body: { isActive: true } });
      return { data: wallet, fields: shownFields(wallet) };
    },
  },
  {
    name: 'wallet delete',
    summary: 'delete a wallet and its sealed key, the only copy: whatever it holds is lost (needs --yes)',
    args: [{ name: 'wallet', description: 'its name or id (`shroud wallets`)' }],
    options: [chainOption, { flags: '-y, --yes', description: 'yes, delete it and its key for good' }],
    async run(ctx) {
      const w = await walletByNameOrId(ctx, need(ctx.args[0], 'wallet'), chainOf(ctx));
      if (ctx.opts.yes !== true)
        throw usage(
          `wallet delete: the key of '${w.name}' (chain ${w.chain.toUpperCase()}, ${w.address}) is kept nowhere else, and what the wallet holds is lost with it: move it out first (\`shroud send\`), then add --yes`,
        );
      const out = await ctx.client.api.walletsDelete({ params: { id: w.id } });
      return { data: { ...out, id: w.id, name: w.name, chain: w.chain }, text: `deleted ${w.name} (chain ${w.chain.toUpperCase()}, ${w.address})` };
    },
  },
];
