/**
 * The bridge (functions/bridge): into chain B from chain A or Ethereum, and out of it; each step
 * the service names is printed as the command that does it.
 */
import type { CommandDef } from './framework.ts';
import { need, secret, str, walletByNameOrId } from './shared.ts';

export function bridgeStepForCli(step: string): string {
  return step
    .replace(/POST \/api\/bridge\/([\w-]+)\/source-tx \{"txHash": "<([^>]+)>"\}\.?/, 'shroud bridge source-tx $1 <$2>')
    .replace(/([Ff])ollow GET \/api\/bridge\/status\/([\w-]+)/, '$1ollow: shroud bridge status $2');
}

export const bridgeCommands: CommandDef[] = [
  {
    name: 'bridge',
    summary: 'bridge into chain B (or out of it with --direction withdraw): shroud bridge <chaina-chainb|ethereum-chainb> <amount> <token> --to <address>',
    args: [
      { name: 'route', description: 'chaina-chainb (Hyperlane) or ethereum-chainb (StarkGate)' },
      { name: 'amount', description: "whole units, a decimal (at most the token's decimals)" },
      { name: 'token', description: 'SOL, … on chaina-chainb; ETH, USDC, … on ethereum-chainb' },
    ],
    options: [
      { flags: '-t, --to <address>', description: 'the address to credit: chain B (0x…) for a deposit, chain A for a withdrawal' },
      {
        flags: '-w, --wallet <wallet>',
        description:
          'chaina-chainb: your wallet (name or id) sends it now — chain A for a deposit, chain B for a withdrawal; without it, the steps to send it yourself',
      },
      { flags: '-d, --direction <direction>', description: 'deposit | withdraw', default: 'deposit' },
      { flags: '-p, --password <password>', description: "withdraw with --wallet: the chain B wallet's password (asked for when left out)" },
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
          ...(t.status === 'pending'
            ? ([
                ['step 1', out.instructions.step1],
                ['step 2', bridgeStepForCli(out.instructions.step2)],
                ['step 3', bridgeStepForCli(out.instructions.step3)],
              ] as [string, unknown][])
            : []),
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
        fields: [
          ['bridge', t.id],
          ['route', `${t.bridgeType} (${t.direction})`],
          ['status', t.status],
          ['amount', `${t.amount} ${t.token}`],
          ['to', t.destAddress],
          ['source tx', t.sourceTxHash],
          ['chain B tx', t.destTxHash],
          ['updated', t.updatedAt],
        ],
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
        table: {
          columns: ['id', 'route', 'amount', 'status', 'created'],
          rows: transactions.map((t) => [t.id, t.bridgeType, `${t.amount} ${t.token}`, t.status, t.createdAt.slice(0, 19).replace('T', ' ')]),
        },
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
      const { transaction: t } = await ctx.client.api.bridgeSourceTx({
        params: { id: need(ctx.args[0], 'id') },
        body: { txHash: need(ctx.args[1], 'txHash') },
      });
      return {
        data: t,
        fields: [
          ['bridge', t.id],
          ['status', t.status],
          ['source tx', t.sourceTxHash],
          ['follow', `shroud bridge status ${t.id}`],
        ],
      };
    },
  },
  {
    name: 'bridge cancel',
    summary: 'cancel a bridge transfer that is still pending (nothing was sent for it)',
    args: [{ name: 'id', description: 'the transfer id (`shroud bridge history`)' }],
    async run(ctx) {
      const { transaction: t } = await ctx.client.api.bridgeCancel({ params: { id: need(ctx.args[0], 'id') } });
      return {
        data: t,
        fields: [
          ['bridge', t.id],
          ['status', t.status],
        ],
      };
    },
  },
];
