/**
 * `shroud token create`, `shroud token mint` and `shroud wallet import`: a chain A token of one's
 * own (its mint authority is the wallet) and a wallet brought in by its secret key (sealed on the
 * server like a created one).
 */
import { amountOf, need, secret, str, submittedFields, usage, walletFields, walletOf, wholeUnits, type BaseContext } from './shared.ts';

export const tokenCommands = [
  {
    name: 'token create',
    summary: 'a new chain A token whose mint authority is your wallet',
    options: [
      { flags: '-d, --decimals <n>', description: '0–9', default: '6' },
      { flags: '-w, --wallet <wallet>', description: 'the chain A wallet (default: the active one)' },
    ],
    async run(ctx: BaseContext) {
      const decimals = Number(str(ctx.opts.decimals) ?? '6');
      if (!Number.isInteger(decimals) || decimals < 0 || decimals > 9) throw usage('--decimals: a whole number, 0 to 9');
      const w = await walletOf(ctx);
      if (w.chain !== 'a') throw usage(`token create: tokens are made on chain A, and '${w.name}' is a chain B wallet`);
      const out = await ctx.client.api.compressionCreateToken({ body: { walletId: w.id, decimals } });
      if ('status' in out) return submittedFields(out);
      return {
        data: out,
        fields: [
          ['mint', out.mintAddress],
          ['decimals', decimals],
          ['authority', `${w.name} (${w.address})`],
          ['tx', out.txHash],
          ['next', `shroud token mint ${out.mintAddress} <amount>`],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'token mint',
    summary: 'mint whole tokens of a token you made (ordinary tokens, to your wallet or --to)',
    args: [
      { name: 'mint', description: 'the token (`shroud token create`)' },
      { name: 'amount', description: 'whole tokens' },
    ],
    options: [
      { flags: '-t, --to <address>', description: 'the recipient (default: the wallet)' },
      { flags: '-w, --wallet <wallet>', description: 'the chain A wallet, the mint authority (default: the active one)' },
    ],
    async run(ctx: BaseContext) {
      const w = await walletOf(ctx);
      const mint = need(ctx.args[0], 'mint');
      const to = str(ctx.opts.to);
      const out = await ctx.client.api.compressionMintTo({ body: { walletId: w.id, mint, amount: amountOf(ctx.args[1]), ...(to ? { to } : {}) } });
      if ('status' in out) return submittedFields(out);
      // The answer is in the token's smallest units: its decimals come with the wallet's balance of it.
      const bal = await ctx.client.api.walletsBalance({ params: { id: w.id }, query: { mint } });
      return {
        data: out,
        fields: [
          ['minted', wholeUnits(out.mintedAmount, bal.decimals)],
          ['mint', out.mint],
          ['to', to ?? `${w.name} (${w.address})`],
          ['tx', out.txHash],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'wallet import',
    summary: 'bring in a wallet by its secret key (chain A: base58; chain B: hex), sealed on the server',
    args: [{ name: 'name', description: 'a name, unique per chain' }],
    options: [
      { flags: '-c, --chain <chain>', description: 'a or b', default: 'a' },
      { flags: '-k, --secret-key <key>', description: 'the secret key (asked for when left out: better, it stays out of your shell history)' },
      { flags: '-p, --password <password>', description: "chain B only: the wallet's key password (asked for when left out)" },
    ],
    async run(ctx: BaseContext) {
      const chain = (str(ctx.opts.chain) ?? 'a') as 'a' | 'b';
      if (chain !== 'a' && chain !== 'b') throw usage('--chain: a or b');
      const name = need(ctx.args[0], 'name');
      const secretKey = await secret(ctx, 'secretKey', `secret key of the wallet to import as ${name}: `);
      const password = chain === 'b' ? await secret(ctx, 'password', `chain B wallet password for ${name}: `) : undefined;
      const { wallet } = await ctx.client.api.walletsImport({ body: { chain, name, secretKey, ...(password ? { password } : {}) } });
      return {
        data: wallet,
        fields: walletFields(wallet, 'imported'),
      };
    },
  },
];
