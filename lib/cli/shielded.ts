/**
 * `shroud shielded …`: the shielded pools (/api/transfer). A deposit makes its note here
 * (lib/client/transfer-note.ts) and sends only the commitment; the note is printed once and is the
 * only way to the money. A withdrawal proves here, from the pool's public leaves, that the note is
 * in the tree (lib/client/withdraw-proof.ts, Groth16) and sends the proof, not the note: no
 * session is needed, so the recipient is not linked to the depositor's account.
 */
import { ShroudError } from '#lib/client/api.ts';
import { circuitArtifacts } from '#lib/client/circuit-artifacts.ts';
import { need, amountOf, str, submittedFields, walletOf, usage, wholeUnits, type BaseContext } from './shared.ts';

/** The note's code (Poseidon and its constants) loads when a note is made or read, not with every command. */
const notes = () => import('#lib/client/transfer-note.ts');

interface ShieldedContext extends BaseContext {
  io: BaseContext['io'] & { progress(label: string): { stage(label: string): void; stop(): void } };
}

async function poolOf(ctx: BaseContext, id: string) {
  const { pools } = await ctx.client.api.transferPools();
  const pool = pools.find((p) => p.id === id);
  if (!pool)
    throw new ShroudError('POOL_NOT_FOUND', 404, `no pool '${id.slice(0, 64)}': one of ${pools.map((p) => p.id).join(', ')} (\`shroud shielded pools\`)`);
  return pool;
}

export const shieldedCommands = [
  {
    name: 'shielded pools',
    summary: 'the shielded pools: each takes deposits of one fixed amount',
    async run(ctx: BaseContext) {
      const { pools } = await ctx.client.api.transferPools();
      return { data: pools, table: { columns: ['pool', 'amount', 'token', 'deposits'], rows: pools.map((p) => [p.id, p.formatted, p.token, p.size]) } };
    },
  },
  {
    name: 'shielded deposit',
    summary: "deposit a pool's amount from a chain A wallet; prints the note (keep it secret: whoever has it can withdraw)",
    args: [{ name: 'pool', description: 'the pool (`shroud shielded pools`): sol-0.1, sol-1, …' }],
    options: [{ flags: '-w, --wallet <wallet>', description: 'the chain A wallet that pays (default: the active one)' }],
    async run(ctx: BaseContext) {
      const pool = await poolOf(ctx, need(ctx.args[0], 'pool'));
      const w = await walletOf(ctx);
      if (w.chain !== 'a') throw usage(`shielded deposit: the pools are on chain A, and '${w.name}' is a chain B wallet`);
      const { createNote, noteCommitment, serializeNote } = await notes();
      const note = createNote(pool.id);
      const out = await ctx.client.api.transferDeposit({ body: { pool: pool.id, walletId: w.id, commitment: await noteCommitment(note) } });
      const text = serializeNote(note);
      // Sent, not settled yet: the note is the caller's all the same (the deposit completes once the chain settles it).
      if ('status' in out)
        return {
          data: { ...out, note: text },
          fields: [...submittedFields(out).fields, ['note (keep it secret; it is shown once)', text]] as [string, unknown][],
        };
      const { deposit } = out;
      return {
        data: { ...deposit, note: text },
        fields: [
          ['deposited', `${pool.formatted} ${pool.token}`],
          ['pool', pool.id],
          ['status', deposit.status],
          ['leaf', deposit.leafIndex],
          ['tx', deposit.txHash],
          ['note (keep it secret; it is shown once)', text],
          ['withdraw', 'shroud shielded withdraw <recipient> (it asks for the note)'],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'shielded withdraw',
    summary: "withdraw a note's deposit to any chain A address: proved here (Groth16), sent without your session",
    args: [{ name: 'recipient', description: 'the chain A address paid' }],
    options: [
      { flags: '-n, --note <note>', description: 'the note (asked for when left out: better, it stays out of your shell history)' },
      { flags: '--relayer-fee <amount>', description: 'whole tokens the pool keeps for paying the fee', default: '0' },
    ],
    async run(ctx: ShieldedContext) {
      const recipient = need(ctx.args[0], 'recipient');
      const text = str(ctx.opts.note) ?? (await ctx.io.askSecret('the note to withdraw (shroud-note:v1:…): '));
      let note;
      try {
        note = (await notes()).parseNote(text);
      } catch (e) {
        if (e instanceof (await notes()).InvalidNote) throw usage(e.message);
        throw e;
      }
      const pool = await poolOf(ctx, note.pool);
      const feeGiven = str(ctx.opts.relayerFee) ?? '0';
      // Exactly, as a decimal string (no float): at most the pool token's decimals.
      const m = /^(\d{1,20})(?:\.(\d+))?$/.exec(feeGiven);
      if (!m || (m[2] ?? '').length > pool.decimals) throw usage(`--relayer-fee: whole tokens, at most ${pool.decimals} decimals`);
      const relayerFee = BigInt(m[1]!) * 10n ** BigInt(pool.decimals) + BigInt((m[2] ?? '').padEnd(pool.decimals, '0') || '0');
      const leaves: string[] = [];
      for (;;) {
        const page = await ctx.client.api.transferLeaves({ params: { id: pool.id }, query: { from: String(leaves.length) } });
        leaves.push(...page.leaves);
        if (page.leaves.length === 0 || leaves.length >= page.size) break;
      }
      const bar = ctx.io.progress('proving');
      bar.stage('proving (Groth16)');
      let request;
      try {
        // Loaded here: snarkjs takes seconds to load, and every other command would pay for it.
        const { proveWithdrawal } = await import('#lib/client/withdraw-proof.ts');
        const artifacts = await circuitArtifacts(ctx.client, 'withdraw');
        request = await proveWithdrawal(note, leaves, recipient, { relayerFee, artifacts }).catch((e: Error) => {
          throw new ShroudError('NOTE_NOT_FOUND', 404, `${e.message}: is this note deposited in ${pool.id}?`);
        });
      } finally {
        bar.stop();
      }
      const out = await ctx.client.api.transferWithdraw({ body: request as never });
      const job = await ctx.client.api.transferJob({ params: { id: out.jobId } });
      return {
        data: job,
        fields: [
          ['status', job.status === 'paid' ? 'paid' : 'pending: the service pays it; follow it with `shroud shielded job`'],
          ['paid', `${wholeUnits(job.amount, pool.decimals)} ${pool.token}`],
          ['to', job.recipient],
          ['fee', `${wholeUnits(job.fee, pool.decimals)} ${pool.token}`],
          ['job', job.jobId],
          ['tx', job.txHash],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'shielded job',
    summary: 'a withdrawal: pending or paid, the amount and its transaction',
    args: [{ name: 'id', description: 'the job id `shielded withdraw` printed' }],
    async run(ctx: BaseContext) {
      const job = await ctx.client.api.transferJob({ params: { id: need(ctx.args[0], 'id') } });
      const pool = await poolOf(ctx, job.pool);
      return {
        data: job,
        fields: [
          ['job', job.jobId],
          ['status', job.status],
          ['paid', `${wholeUnits(job.amount, pool.decimals)} ${pool.token}`],
          ['to', job.recipient],
          ['attempts', job.attempts],
          ['tx', job.txHash],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'shielded deposits',
    summary: 'your deposits (their commitments, never the notes)',
    async run(ctx: BaseContext) {
      const { deposits } = await ctx.client.api.transferDeposits();
      return {
        data: deposits,
        table: {
          columns: ['id', 'pool', 'status', 'leaf', 'created'],
          rows: deposits.map((d) => [d.id, d.pool, d.status, d.leafIndex, d.createdAt.slice(0, 19)]),
        },
        empty: 'no deposits yet: `shroud shielded deposit <pool>`',
      };
    },
  },
  {
    name: 'shielded test-tokens',
    summary: 'localnet and devnet: TEST tokens for the test-… pools, into a chain A wallet',
    args: [{ name: 'amount', description: 'whole tokens' }],
    options: [{ flags: '-w, --wallet <wallet>', description: 'the chain A wallet (default: the active one)' }],
    async run(ctx: BaseContext) {
      const w = await walletOf(ctx);
      const out = await ctx.client.api.transferTestTokens({ body: { walletId: w.id, amount: amountOf(ctx.args[0]) } });
      if ('status' in out) return submittedFields(out);
      return {
        data: out,
        fields: [
          ['received', `${wholeUnits(out.amount, out.decimals)} TEST`],
          ['mint', out.mint],
          ['tx', out.txHash],
        ] as [string, unknown][],
      };
    },
  },
];
