/**
 * `shroud group …`: the Merkle groups the group-membership schemas prove against
 * (lib/attest): make one, add a member's identity commitment, read its root and size.
 */
import { need, usage, type BaseContext } from './shared.ts';

/** A commitment as the API takes it (decimal); `toolkit hash poseidon` prints hex, taken as well. */
function decimalOf(v: string): string {
  if (/^\d{1,78}$/.test(v)) return v;
  if (/^0x[0-9a-fA-F]{1,64}$/.test(v)) return BigInt(v).toString();
  throw usage('commitment: a decimal or 0x-hex field element');
}

export const groupCommands = [
  {
    name: 'group create',
    summary: 'a new attestation group (a Merkle tree of identity commitments; you own it)',
    args: [{ name: 'name', description: 'its name' }],
    async run(ctx: BaseContext) {
      const { group: g } = await ctx.client.api.attestGroupCreate({ body: { name: need(ctx.args[0], 'name') } });
      return {
        data: g,
        fields: [
          ['group', g.id],
          ['name', g.name],
          ['root', g.root],
          ['size', g.size],
          ['depth', g.depth],
          ['next', `shroud group add ${g.id} <commitment>`],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'group add',
    summary: 'add a member to a group of yours: their identity commitment (a field element they give you)',
    args: [
      { name: 'id', description: 'the group id' },
      { name: 'commitment', description: "the member's identity commitment, Poseidon(secret): decimal or 0x-hex (`shroud toolkit hash poseidon <secret>`)" },
    ],
    async run(ctx: BaseContext) {
      const out = await ctx.client.api.attestGroupAddMember({
        params: { id: need(ctx.args[0], 'id') },
        body: { commitment: decimalOf(need(ctx.args[1], 'commitment')) },
      });
      return {
        data: out,
        fields: [
          ['added', out.commitment],
          ['index', out.index],
          ['root', out.root],
          ['size', out.size],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'group show',
    summary: "a group: its root, size and members' commitments",
    args: [{ name: 'id', description: 'the group id' }],
    async run(ctx: BaseContext) {
      const id = need(ctx.args[0], 'id');
      const [g, m] = await Promise.all([ctx.client.api.attestGroupGet({ params: { id } }), ctx.client.api.attestGroupMembers({ params: { id } })]);
      return {
        data: { ...g, commitments: m.commitments },
        fields: [
          ['group', g.id],
          ['name', g.name],
          ['root', g.root],
          ['size', g.size],
          ['members', m.commitments.length ? m.commitments : null],
        ] as [string, unknown][],
      };
    },
  },
];
