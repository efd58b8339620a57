/**
 * ZK compression on chain A (functions/compression): compress and decompress the native coin or a
 * token. Sending compressed tokens is `send` (wallets.ts); making a token is tokens.ts's.
 */
import type { CommandContext, CommandDef } from './framework.ts';
import { amountOf, NATIVE_DECIMALS, str, submittedFields, usage, walletOf, walletOption, wholeUnits } from './shared.ts';

async function chainAWalletId(ctx: CommandContext, command: string): Promise<string> {
  const w = await walletOf(ctx);
  if (w.chain !== 'a') {
    throw usage(
      `${command}: compression exists on chain A only, and '${w.name}' is a chain B wallet (\`shroud wallets --chain a\` lists your chain A wallets; \`shroud send\` moves tokens on chain B)`,
    );
  }
  return w.id;
}

export const compressionCommands: CommandDef[] = [
  {
    name: 'compress',
    summary: 'compress native coin, or a token with --token (ZK compression on chain A)',
    args: [{ name: 'amount', description: 'whole coins (whole tokens with --token)' }],
    options: [walletOption, { flags: '-t, --token <mint>', description: 'a token mint: compress that token instead of the native coin' }],
    async run(ctx) {
      const mint = str(ctx.opts.token);
      if (mint) {
        const t = await ctx.client.api.compressionCompressToken({
          body: { walletId: await chainAWalletId(ctx, 'compress'), mint, amount: amountOf(ctx.args[0]) },
        });
        if ('status' in t) return submittedFields(t);
        return {
          data: t,
          fields: [
            ['compressed', wholeUnits(t.compressedAmount, t.decimals)],
            ['token', t.mint],
            ['tx', t.txHash],
          ],
        };
      }
      const out = await ctx.client.api.compressionCompressNative({ body: { walletId: await chainAWalletId(ctx, 'compress'), amount: amountOf(ctx.args[0]) } });
      if ('status' in out) return submittedFields(out);
      return {
        data: out,
        fields: [
          ['compressed', wholeUnits(out.compressedAmount, out.decimals)],
          ['tx', out.txHash],
        ],
      };
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
        return {
          data: t,
          fields: [
            ['decompressed', wholeUnits(t.decompressedAmount, bal.decimals)],
            ['token', mint],
            ['tx', t.txHash],
          ],
        };
      }
      const out = await ctx.client.api.compressionDecompressNative({
        body: { walletId: await chainAWalletId(ctx, 'decompress'), amount: amountOf(ctx.args[0]) },
      });
      if ('status' in out) return submittedFields(out);
      return {
        data: out,
        fields: [
          ['decompressed', wholeUnits(out.decompressedAmount, NATIVE_DECIMALS)],
          ['tx', out.txHash],
        ],
      };
    },
  },
];
