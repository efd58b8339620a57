/**
 * The ZK toolkit (functions/zk-toolkit): hashes, field and curve arithmetic, Shamir sharing, and a
 * Groth16 proof made and checked by the service.
 */
import type { ShroudClient } from '#lib/client/api.ts';
import type { CommandDef } from './framework.ts';
import { need, str, usage } from './shared.ts';

const TOOLKIT: Record<string, Record<string, (c: ShroudClient, a: string[]) => Promise<unknown>>> = {
  hash: {
    poseidon: (c, a) => c.api.zkToolkitHashPoseidon({ body: a.length === 1 ? { input: a[0]! } : { inputs: a } }),
    mimc: (c, a) => c.api.zkToolkitHashMimc({ body: { input: a[0]!, key: a[1] } }),
    pedersen: (c, a) => c.api.zkToolkitHashPedersen({ body: { input: a.join(' ') } }),
  },
  field: {
    add: (c, a) => c.api.zkToolkitFieldAdd({ body: { a: a[0]!, b: a[1]! } }),
    sub: (c, a) => c.api.zkToolkitFieldSub({ body: { a: a[0]!, b: a[1]! } }),
    mul: (c, a) => c.api.zkToolkitFieldMul({ body: { a: a[0]!, b: a[1]! } }),
    div: (c, a) => c.api.zkToolkitFieldDiv({ body: { a: a[0]!, b: a[1]! } }),
    inv: (c, a) => c.api.zkToolkitFieldInv({ body: { a: a[0]! } }),
    sqrt: (c, a) => c.api.zkToolkitFieldSqrt({ body: { a: a[0]! } }),
    pow: (c, a) => c.api.zkToolkitFieldPow({ body: { base: a[0]!, exp: a[1]! } }),
    random: (c) => c.api.zkToolkitFieldRandom(),
    prime: (c) => c.api.zkToolkitFieldPrime(),
  },
  ec: {
    base: (c) => c.api.zkToolkitEcBase(),
    params: (c) => c.api.zkToolkitEcParams(),
    mulbase: (c, a) => c.api.zkToolkitEcMulbase({ body: { scalar: a[0]! } }),
    add: (c, a) => c.api.zkToolkitEcAdd({ body: { p1: { x: a[0]!, y: a[1]! }, p2: { x: a[2]!, y: a[3]! } } }),
    mul: (c, a) => c.api.zkToolkitEcMul({ body: { point: { x: a[0]!, y: a[1]! }, scalar: a[2]! } }),
    isoncurve: (c, a) => c.api.zkToolkitEcIsoncurve({ body: { x: a[0]!, y: a[1]! } }),
  },
  shamir: {
    split: (c, a) => c.api.zkToolkitShamirSplit({ body: { secret: a[0]!, threshold: Number(a[1]), shares: Number(a[2]) } }),
    combine: (c, a) => c.api.zkToolkitShamirCombine({ body: { shares: a } }),
  },
};

const flatFields = (data: unknown, prefix = ''): [string, unknown][] =>
  data && typeof data === 'object' && !Array.isArray(data)
    ? Object.entries(data).flatMap(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? flatFields(v, `${prefix}${k}.`)
          : [[`${prefix}${k}`, Array.isArray(v) ? v.join(', ') : v] as [string, unknown]],
      )
    : [[prefix || 'value', data]];

export const toolkitCommands: CommandDef[] = [
  ...Object.entries(TOOLKIT).map(
    ([group, ops]): CommandDef => ({
      name: `toolkit ${group}`,
      summary: `${group}: ${Object.keys(ops).join(', ')}`,
      args: [
        { name: 'op', description: Object.keys(ops).join(' | ') },
        { name: 'values', description: 'decimal numbers (points as x y)', optional: true, variadic: true },
      ],
      async run(ctx) {
        const [op, ...values] = ctx.args;
        const fn = ops[op ?? ''];
        if (!fn) throw usage(`toolkit ${group}: one of ${Object.keys(ops).join(', ')}`);
        const data = await fn(ctx.client, values);
        return { data, fields: flatFields(data) };
      },
    }),
  ),
  {
    name: 'toolkit prove',
    summary: 'a Groth16 proof of a circuit (default preimage) for inputs name=value',
    args: [{ name: 'inputs', description: 'name=value …', variadic: true }],
    options: [{ flags: '-c, --circuit <name>', description: 'the circuit', default: 'preimage' }],
    async run(ctx) {
      const inputs = Object.fromEntries(ctx.args.map((a) => a.split('=') as [string, string]));
      const out = await ctx.client.api.zkToolkitProofGenerate({ body: { circuit: str(ctx.opts.circuit) ?? 'preimage', inputs } });
      return {
        data: out,
        fields: [
          ['publicSignals', out.publicSignals.join(', ')],
          ['proof', JSON.stringify(out.proof)],
        ],
      };
    },
  },
  {
    name: 'toolkit verify',
    summary: 'verify a Groth16 proof: the JSON `toolkit prove --json` printed',
    args: [{ name: 'proof', description: '{"proof", "publicSignals"} as JSON' }],
    options: [{ flags: '-c, --circuit <name>', description: 'the circuit', default: 'preimage' }],
    async run(ctx) {
      let given: { proof: unknown; publicSignals: unknown };
      try {
        given = JSON.parse(need(ctx.args.join(' '), 'proof'));
      } catch {
        throw usage('proof: not JSON');
      }
      const out = await ctx.client.api.zkToolkitProofVerify({
        body: { circuit: str(ctx.opts.circuit) ?? 'preimage', proof: given.proof as never, publicSignals: given.publicSignals as never },
      });
      return { data: out, text: out.valid ? 'valid' : 'NOT valid' };
    },
  },
  {
    name: 'toolkit circuits',
    summary: 'the circuits `toolkit prove` can prove: their inputs, public signals and size',
    async run(ctx) {
      const out = await ctx.client.api.zkToolkitProofCircuits();
      return {
        data: out,
        table: {
          columns: ['circuit', 'private inputs', 'public', 'constraints', 'what it proves'],
          rows: out.circuits.map((c) => [
            c.name === out.defaultCircuit ? `${c.name} (default)` : c.name,
            c.privateInputs.join(', '),
            [...c.publicInputs, ...c.publicSignals].join(', '),
            c.constraints,
            c.description,
          ]),
        },
      };
    },
  },
];
