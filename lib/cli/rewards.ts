/**
 * `shroud rewards …`: the points the user's own chain A transactions earned (lib/rewards/rules.ts),
 * under the pseudonym the leaderboard shows, and the claim of an ended epoch's reward, paid on
 * chain A against the epoch's published Merkle root.
 */
import { need, submittedFields, usage, walletOf, wholeUnits, type BaseContext } from './shared.ts';

export const rewardsCommands = [
  {
    name: 'rewards',
    summary: 'your points this epoch, your rank, and what ended epochs owe you (`shroud rewards claim <epoch>`)',
    async run(ctx: BaseContext) {
      const [me, program] = await Promise.all([ctx.client.api.rewardsMe(), ctx.client.api.rewardsProgram()]);
      const t = program.rewardToken;
      const owed = me.claimable.filter((c) => !c.claimed);
      return {
        data: me,
        fields: [
          ['epoch', me.epoch],
          ['points', me.points],
          ['rank', me.rank ?? 'not ranked yet'],
          ['pseudonym', me.pseudonym],
          [
            'claimable',
            owed.length ? owed.map((c) => `epoch ${c.epoch}: ${wholeUnits(c.amount, t.decimals)} ${t.symbol} (shroud rewards claim ${c.epoch})`) : null,
          ],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'rewards leaderboard',
    summary: 'the points table of an epoch, by pseudonym',
    options: [{ flags: '-e, --epoch <n>', description: 'the epoch (default: the current one)' }],
    async run(ctx: BaseContext) {
      const epoch = ctx.opts.epoch === undefined ? undefined : String(ctx.opts.epoch);
      const out = await ctx.client.api.rewardsLeaderboard({ query: epoch ? { epoch } : {} });
      return {
        data: out,
        table: { columns: ['rank', 'pseudonym', 'points'], rows: out.entries.map((e) => [e.rank, e.pseudonym, e.points]) },
        empty: `no points in epoch ${out.epoch} yet`,
      };
    },
  },
  {
    name: 'rewards claim',
    summary: "claim an ended epoch's reward into a chain A wallet",
    args: [{ name: 'epoch', description: 'the epoch (`shroud rewards` lists what is claimable)' }],
    options: [{ flags: '-w, --wallet <wallet>', description: 'the chain A wallet paid (default: the active one)' }],
    async run(ctx: BaseContext) {
      const epoch = Number(need(ctx.args[0], 'epoch'));
      if (!Number.isInteger(epoch) || epoch < 0) throw usage('epoch: a whole number (`shroud rewards`)');
      const w = await walletOf(ctx);
      if (w.chain !== 'a') throw usage(`rewards claim: rewards are paid on chain A, and '${w.name}' is a chain B wallet`);
      const [out, program] = await Promise.all([ctx.client.api.rewardsClaim({ body: { epoch, walletId: w.id } }), ctx.client.api.rewardsProgram()]);
      if ('status' in out) return submittedFields(out);
      const t = program.rewardToken;
      return {
        data: out,
        fields: [
          ['claimed', `${wholeUnits(out.amount, t.decimals)} ${t.symbol}`],
          ['epoch', out.epoch],
          ['points', out.points],
          ['wallet', `${w.name} (${out.address})`],
          ['tx', out.txHash],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'rewards ledger',
    summary: 'what earned your points: each transaction, its epoch and how it counted',
    async run(ctx: BaseContext) {
      const { entries } = await ctx.client.api.rewardsLedger();
      return {
        data: entries,
        table: {
          columns: ['epoch', 'source', 'points', 'basis', 'tx', 'at'],
          rows: entries.map((e) => [e.epoch, e.source, e.points, e.basis, e.txHash, e.at.slice(0, 19).replace('T', ' ')]),
        },
        empty: 'no points yet: chain A transactions of yours earn them (`shroud compress`, `shroud swap`, …)',
      };
    },
  },
];
