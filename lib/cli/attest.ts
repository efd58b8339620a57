/**
 * Attestations (functions/attest): a claim proved here (Groth16, lib/client/attest-proof.ts) and
 * signed by the issuer, the schemas, your attestations, a check of one. Groups are groups.ts's.
 */
import { attestationProof } from '#lib/client/attest-proof.ts';
import { ShroudError } from '#lib/client/api.ts';
import { SIGNED_OUT_HINT, type CommandContext, type CommandDef } from './framework.ts';
import { need, str, usage } from './shared.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An attestation from a file: the attestation itself, or what `attest … --json` printed (`{attestation, …}`). */
async function attestationFile(ctx: CommandContext, path: string) {
  const { bytes } = await ctx.io.readFile(path).catch(() => {
    throw usage(`attestation: neither an attestation id nor a file: ${path.slice(0, 80)}`);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw usage(`${path.slice(0, 80)}: not JSON`);
  }
  const a = parsed && typeof parsed === 'object' && 'attestation' in parsed ? (parsed as { attestation: unknown }).attestation : parsed;
  if (!a || typeof a !== 'object') throw usage(`${path.slice(0, 80)}: no attestation in it`);
  return a as Awaited<ReturnType<CommandContext['client']['api']['attestGet']>>['attestation'];
}

export const attestCommands: CommandDef[] = [
  {
    name: 'attest',
    summary:
      'an attestation of a claim, proved here (Groth16): attest age-over-18 --value 30, attest preimage --secret 5, attest range --value 7 --min 1 --max 9',
    args: [{ name: 'schema', description: 'age-over-18 | range | preimage (`shroud attest schemas`)' }],
    options: [
      { flags: '--value <n>', description: 'age-over-18, range: the private value (an age, …)' },
      { flags: '--min <n>', description: 'range: the lower bound' },
      { flags: '--max <n>', description: 'range: the upper bound' },
      {
        flags: '--secret <n>',
        description: 'preimage: the secret whose Poseidon hash is the claim; group-member: the secret whose Poseidon hash is your identity commitment',
      },
      { flags: '--group <id>', description: 'group-member: the group (`shroud group show <id>`)' },
      { flags: '--blinding <n>', description: "range schemas: the commitment's blinding (default: a fresh random one, printed)" },
      { flags: '--scope <scope>', description: 'the scope (one attestation per subject and scope)', default: 'default' },
      { flags: '--anchor', description: "also record it in chain B's registry" },
    ],
    async run(ctx) {
      const schema = need(ctx.args[0], 'schema');
      const scope = str(ctx.opts.scope) ?? 'default';
      const bar = ctx.io.progress('proving');
      bar.stage('proving (Groth16)');
      let proof;
      try {
        proof = await attestationProof(ctx.client, schema, scope, {
          value: str(ctx.opts.value),
          min: str(ctx.opts.min),
          max: str(ctx.opts.max),
          secret: str(ctx.opts.secret),
          blinding: str(ctx.opts.blinding),
          group: str(ctx.opts.group),
        });
      } finally {
        bar.stop();
      }
      const group = str(ctx.opts.group);
      const out = await ctx.client.api.attestIssue({
        body: {
          schema,
          proof: proof.proof as never,
          publicSignals: proof.publicSignals,
          scope,
          ...(group ? { group } : {}),
          ...(ctx.opts.anchor ? { anchor: true } : {}),
        },
      });
      const a = out.attestation;
      return {
        data: { ...out, ...(proof.blinding ? { blinding: proof.blinding } : {}) },
        fields: [
          ['attestation', a.id],
          ['schema', a.schema],
          ...Object.entries(a.claims).map(([k, v]) => [`claim ${k}`, v] as [string, unknown]),
          ['nullifier', a.nullifier],
          ['expires', a.expiresAt],
          ...(proof.blinding ? ([['blinding (keep it: it opens the commitment)', proof.blinding]] as [string, unknown][]) : []),
          ...(out.anchor
            ? ([['chain B', 'txHash' in out.anchor ? out.anchor.txHash : `${out.anchor.error}: ${out.anchor.message}`]] as [string, unknown][])
            : []),
        ],
      };
    },
  },
  {
    name: 'attest schemas',
    summary: 'what can be attested: each schema, its circuit and its claims',
    async run(ctx) {
      const { schemas } = await ctx.client.api.attestSchemas();
      const list = schemas as ((typeof schemas)[number] & { title?: string; claims?: string[]; needsGroup?: boolean })[];
      return {
        data: schemas,
        table: {
          columns: ['schema', 'title', 'circuit', 'claims', 'group'],
          rows: list.map((x) => [x.id, x.title, x.circuit, (x.claims ?? []).join(', '), x.needsGroup ? 'yes' : '']),
        },
      };
    },
  },
  {
    name: 'attest mine',
    summary: 'your attestations, newest first',
    options: [{ flags: '-l, --limit <n>', description: '1–100', default: '20' }],
    async run(ctx) {
      const { attestations } = await ctx.client.api.attestList({ query: { limit: str(ctx.opts.limit) ?? '20' } });
      return {
        data: attestations,
        table: {
          columns: ['id', 'schema', 'claims', 'issued', 'expires', 'revoked'],
          rows: attestations.map((a) => [
            a.id,
            a.schema,
            Object.entries(a.claims)
              .map(([k, v]) => `${k}=${v.length > 20 ? `${v.slice(0, 17)}…` : v}`)
              .join(' '),
            a.issuedAt.slice(0, 10),
            a.expiresAt.slice(0, 10),
            a.revoked ? 'yes' : '',
          ]),
        },
        empty: 'no attestations yet: `shroud attest schemas`',
      };
    },
  },
  {
    name: 'attest verify',
    summary:
      "check an attestation — one of yours by id, or one someone gave you as a JSON file (no account needed): the issuer's signature, the fields, revocation, expiry",
    args: [
      {
        name: 'attestation',
        description: 'the attestation id (`shroud attest mine`), or a file holding the attestation as JSON (`attest … --json` prints it)',
      },
    ],
    async run(ctx) {
      const given = need(ctx.args[0], 'attestation');
      const attestation = UUID.test(given) ? (await ctx.client.api.attestGet({ params: { id: given } })).attestation : await attestationFile(ctx, given);
      const { revoked: _revoked, revokedAt: _revokedAt, ...signed } = attestation as typeof attestation & { revoked?: boolean; revokedAt?: string };
      const out = await ctx.client.api.attestVerify({ body: { attestation: signed } });
      return {
        data: out,
        fields: [
          ['valid', out.valid],
          ['revoked', out.revoked],
          ['expired', out.expired],
          ['reasons', out.reasons.length ? out.reasons : null],
        ],
      };
    },
  },
  {
    name: 'attest revoke',
    summary: 'revoke one of your attestations: from now on every check of it says revoked',
    args: [{ name: 'id', description: 'the attestation id (`shroud attest mine`)' }],
    async run(ctx) {
      // The route also takes the issuer's signature (its key revokes any attestation): an operator's
      // task, not this command's. Signed out, the subject cannot be recognised: say so first.
      if (!(await ctx.client.api.authSession()).authenticated) throw new ShroudError('UNAUTHENTICATED', 401, `not signed in: ${SIGNED_OUT_HINT}`);
      const out = await ctx.client.api.attestRevoke({ params: { id: need(ctx.args[0], 'id') }, body: {} });
      return {
        data: out,
        fields: [
          ['revoked', out.id],
          ['at', out.revokedAt],
        ],
      };
    },
  },
];
