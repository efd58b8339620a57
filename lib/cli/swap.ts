/**
 * `shroud swap …`: chain A swaps through the service's pool (functions/swap, lib/swap): the pairs,
 * a quote (the amounts, the fee, the price impact and what the output choice hides), its execution,
 * the orders, and a one-time output address swept to where the user wants it. Amounts are whole
 * tokens both ways; `--json` keeps the service's smallest units.
 */
import { need, amountOf, str, submittedFields, usage, walletOf, wholeUnits, type BaseContext } from './shared.ts';

const OUTPUTS = ['wallet', 'one-time'] as const;

export const swapCommands = [
  {
    name: 'swap pairs',
    summary: 'what can be swapped on chain A: each pair, its fee and its reserves (whole tokens)',
    async run(ctx: BaseContext) {
      const { adapter, pairs } = await ctx.client.api.swapPairs();
      return {
        data: { adapter, pairs },
        table: {
          columns: ['pair', 'base', 'quote', 'fee', 'reserves'],
          rows: pairs.map((p) => [
            p.pairId,
            p.base.symbol,
            p.quote.symbol,
            `${p.feeBps / 100}%`,
            `${wholeUnits(p.reserves.base, p.base.decimals)} ${p.base.symbol} / ${wholeUnits(p.reserves.quote, p.quote.decimals)} ${p.quote.symbol}`,
          ]),
        },
        empty: 'no pairs on this server',
      };
    },
  },
  {
    name: 'swap quote',
    summary: 'a quote to swap whole tokens from a chain A wallet (valid a short while; `shroud swap execute <quoteId>` does it)',
    args: [
      { name: 'from', description: 'what you give: SOL, sUSD, … or a mint (`shroud swap pairs`)' },
      { name: 'to', description: 'what you get' },
      { name: 'amount', description: 'whole tokens of `from`' },
    ],
    options: [
      { flags: '-w, --wallet <wallet>', description: 'the chain A wallet, by name or id (default: the active one)' },
      { flags: '-s, --slippage <bps>', description: 'the most the price may move against you, in basis points', default: '50' },
      {
        flags: '-o, --output <output>',
        description: 'wallet (default) or one-time: a fresh address that does not link the output to your wallet (`shroud swap sweep`)',
        default: 'wallet',
      },
    ],
    async run(ctx: BaseContext) {
      const w = await walletOf(ctx);
      if (w.chain !== 'a') throw usage(`swap: swaps are on chain A, and '${w.name}' is a chain B wallet (\`shroud wallets --chain a\`)`);
      const slippageBps = Number(str(ctx.opts.slippage) ?? '50');
      if (!Number.isInteger(slippageBps) || slippageBps < 0) throw usage('--slippage: whole basis points (50 = 0.5%)');
      const output = str(ctx.opts.output) ?? 'wallet';
      if (!(OUTPUTS as readonly string[]).includes(output)) throw usage(`--output: one of ${OUTPUTS.join(', ')}`);
      const q = await ctx.client.api.swapQuote({
        body: {
          walletId: w.id,
          from: need(ctx.args[0], 'from'),
          to: need(ctx.args[1], 'to'),
          amount: amountOf(ctx.args[2]),
          slippageBps,
          output: output as (typeof OUTPUTS)[number],
        },
      });
      return {
        data: q,
        fields: [
          ['quote', q.quoteId],
          ['you give', `${wholeUnits(q.amountIn, q.from.decimals)} ${q.from.symbol}`],
          ['you get', `${wholeUnits(q.amountOut, q.to.decimals)} ${q.to.symbol}`],
          ['at least', `${wholeUnits(q.minAmountOut, q.to.decimals)} ${q.to.symbol}`],
          ['fee', `${wholeUnits(q.fee, q.from.decimals)} ${q.from.symbol} (${q.feeBps / 100}%)`],
          ['price impact', `${q.priceImpactBps / 100}%`],
          ['output', q.privacy.output],
          ['hides', q.privacy.hides.length ? q.privacy.hides : null],
          ['does not hide', q.privacy.doesNotHide],
          ['expires', q.expiresAt],
          ['next', `shroud swap execute ${q.quoteId}`],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'swap execute',
    summary: 'do a quoted swap (one chain A transaction; refused once the quote has expired or the price moved past its slippage)',
    args: [{ name: 'quoteId', description: 'the quote (`shroud swap quote`)' }],
    async run(ctx: BaseContext) {
      const out = await ctx.client.api.swapExecute({ body: { quoteId: need(ctx.args[0], 'quoteId') } });
      if ('status' in out) return submittedFields(out);
      const { order } = await ctx.client.api.swapOrder({ params: { id: out.orderId } });
      // The order names the tokens; their decimals come with the pairs.
      const { pairs } = await ctx.client.api.swapPairs();
      const tokens = pairs.flatMap((p) => [p.base, p.quote]);
      const tok = (t: string) => tokens.find((x) => x.symbol === t || x.mint === t);
      const whole = (units: string, t: string) => (tok(t) ? `${wholeUnits(units, tok(t)!.decimals)} ${tok(t)!.symbol}` : `${units} (smallest units of ${t})`);
      return {
        data: out,
        fields: [
          ['order', out.orderId],
          ['gave', whole(out.amountIn, order.from)],
          ['got', whole(out.amountOut, order.to)],
          ['to', out.outputAddress],
          ['tx', out.txHash],
          ['explorer', out.explorerUrl],
          ...(order.output === 'one-time' ? ([['next', `shroud swap sweep ${out.outputAddress} <your address>`]] as [string, unknown][]) : []),
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'swap orders',
    summary: 'your swaps, newest first',
    async run(ctx: BaseContext) {
      const { orders } = await ctx.client.api.swapOrders();
      return {
        data: orders,
        table: {
          columns: ['id', 'status', 'from', 'to', 'output', 'created'],
          rows: orders.map((o) => [o.id, o.status, o.from, o.to, o.output, o.createdAt.slice(0, 19)]),
        },
        empty: 'no swaps yet: `shroud swap quote <from> <to> <amount>`',
      };
    },
  },
  {
    name: 'swap addresses',
    summary: 'your one-time output addresses (what `swap sweep` empties)',
    async run(ctx: BaseContext) {
      const { addresses } = await ctx.client.api.swapAddresses();
      return {
        data: addresses,
        table: { columns: ['address', 'order', 'created'], rows: addresses.map((a) => [a.address, a.orderId, a.createdAt.slice(0, 19)]) },
        empty: 'no one-time addresses: `shroud swap quote … --output one-time`',
      };
    },
  },
  {
    name: 'swap sweep',
    summary: "move what a one-time output address holds to an address of yours (the address's own key signs it)",
    args: [
      { name: 'address', description: 'the one-time address (`shroud swap addresses`)' },
      { name: 'to', description: 'where to send it' },
      { name: 'amount', description: 'whole tokens (default: all of it)', optional: true },
    ],
    async run(ctx: BaseContext) {
      const given = ctx.args[2];
      const out = await ctx.client.api.swapSweep({
        params: { address: need(ctx.args[0], 'address') },
        body: { to: need(ctx.args[1], 'to'), ...(given !== undefined ? { amount: amountOf(given) } : {}) },
      });
      if ('status' in out) return submittedFields(out);
      const t = out.token;
      return {
        data: out,
        fields: [
          ['swept', `${wholeUnits(out.amount, t.decimals)} ${t.symbol}`],
          ['to', out.to],
          ['left there', `${wholeUnits(out.remaining, t.decimals)} ${t.symbol}`],
          ['fee paid by', `${out.feePayer.kind} (${out.feePayer.address})`],
          ['tx', out.txHash],
          ['explorer', out.explorerUrl],
        ] as [string, unknown][],
      };
    },
  },
];
