/**
 * The proof history (functions/proofs): every proof the service made, checked or accepted for you
 * (lib/proofs/history.ts), listed, shown, checked again, counted, exported as NDJSON and deleted.
 * The session's own STARK proof (`shroud proofs`, `proofs prove`) is zkauth.ts's.
 */
import type { CommandDef } from './framework.ts';
import { need, str, usage } from './shared.ts';

const TYPES = ['toolkit', 'storage', 'stark', 'identity', 'attestation'] as const;
type ProofType = (typeof TYPES)[number];

/** `--type`, `--from`, `--to` as the API takes them, refused here when they cannot be. */
function filters(opts: Record<string, string | boolean | undefined>) {
  const type = str(opts.type);
  if (type !== undefined && !TYPES.includes(type as ProofType)) throw usage(`--type: one of ${TYPES.join(', ')}`);
  const when = (flag: 'from' | 'to') => {
    const v = str(opts[flag]);
    if (v !== undefined && !/^\d{1,15}$/.test(v) && Number.isNaN(Date.parse(v))) throw usage(`--${flag}: a date (2026-11-27, ISO 8601) or epoch milliseconds`);
    return v;
  };
  const from = when('from');
  const to = when('to');
  return { ...(type ? { type: type as ProofType } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
}
const filterOptions = [
  { flags: '-t, --type <type>', description: TYPES.join(' | ') },
  { flags: '--from <date>', description: 'from this time on (ISO 8601 or epoch ms, inclusive)' },
  { flags: '--to <date>', description: 'up to this time (inclusive)' },
];
const when = (iso: string) => iso.slice(0, 19).replace('T', ' ');

export const proofCommands: CommandDef[] = [
  {
    name: 'proofs history',
    summary: 'the proofs made, checked or accepted for you, newest first (never a private input)',
    options: [...filterOptions, { flags: '-l, --limit <n>', description: '1–100', default: '20' }],
    async run(ctx) {
      const limit = str(ctx.opts.limit) ?? '20';
      if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100) throw usage('--limit: 1–100');
      const { proofs, nextCursor } = await ctx.client.api.proofsList({ query: { ...filters(ctx.opts), limit } });
      return {
        data: { proofs, nextCursor },
        table: {
          columns: ['id', 'type', 'action', 'result', 'circuit', 'at'],
          rows: proofs.map((p) => [p.id, p.type, p.action, p.result, p.circuit ?? p.statement ?? '', when(p.createdAt)]),
        },
        empty: 'no proofs recorded yet',
      };
    },
  },
  {
    name: 'proofs show',
    summary: 'one proof of your history: what it proved, its public signals and what it is linked to',
    args: [{ name: 'id', description: 'the record id (`shroud proofs history`)' }],
    async run(ctx) {
      const { proof: p } = await ctx.client.api.proofsGet({ params: { id: need(ctx.args[0], 'id') } });
      return {
        data: p,
        fields: [
          ['proof', p.id],
          ['type', p.type],
          ['action', p.action],
          ['result', p.result],
          ['circuit', p.circuit ?? null],
          ['statement', p.statement ?? null],
          ['key hash', p.vkHash ?? null],
          ['public signals', p.publicSignals?.length ? p.publicSignals : null],
          ...Object.entries(p.links).map(([k, v]) => [`link ${k}`, v] as [string, unknown]),
          ['at', p.createdAt],
          ['kept until', p.expiresAt ?? null],
        ],
      };
    },
  },
  {
    name: 'proofs check',
    summary: "check a recorded proof again: Groth16 against the circuit's pinned key, an identity proof on chain B",
    args: [{ name: 'id', description: 'the record id (`shroud proofs history`)' }],
    async run(ctx) {
      const out = await ctx.client.api.proofsVerify({ params: { id: need(ctx.args[0], 'id') } });
      return {
        data: out,
        fields: [['valid', out.valid], ['checked', out.verifiedAt], ...(out.reason ? ([['reason', out.reason]] as [string, unknown][]) : [])],
      };
    },
  },
  {
    name: 'proofs stats',
    summary: 'how many proofs your history holds, by type and result',
    async run(ctx) {
      const s = await ctx.client.api.proofsStats();
      const types = Object.keys(s.byTypeAndResult);
      return {
        data: s,
        table: {
          columns: ['type', 'valid', 'invalid', 'all'],
          rows: [
            ...types.map((t) => [t, s.byTypeAndResult[t]!.valid ?? 0, s.byTypeAndResult[t]!.invalid ?? 0, s.byType[t] ?? 0]),
            ['all', s.byResult.valid ?? 0, s.byResult.invalid ?? 0, s.total],
          ],
        },
      };
    },
  },
  {
    name: 'proofs export',
    summary: 'your proof history as NDJSON (one record a line, newest first; at most 5,000)',
    args: [{ name: 'out', description: 'the file to write (default: print it)', optional: true }],
    options: filterOptions,
    async run(ctx) {
      const ndjson = await ctx.client.api.proofsExport({ query: filters(ctx.opts) });
      const lines = ndjson.split('\n').filter(Boolean).length;
      if (!ctx.args[0])
        return {
          data: ndjson
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as unknown),
          text: ndjson.trimEnd(),
        };
      const path = await ctx.io.writeFile(ctx.args[0], new TextEncoder().encode(ndjson));
      return {
        data: { path, records: lines },
        fields: [
          ['saved', path],
          ['records', lines],
        ],
      };
    },
  },
  {
    name: 'proofs rm',
    summary: 'delete a record of your proof history (the proof itself, on chain or off, is untouched)',
    args: [{ name: 'id', description: 'the record id (`shroud proofs history`)' }],
    async run(ctx) {
      const out = await ctx.client.api.proofsDelete({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `deleted ${ctx.args[0]}` };
    },
  },
];
