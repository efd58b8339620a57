/**
 * The session's STARK proof (functions/zkauth): its state, a new proof recorded on chain B, its
 * check; and unlinking an OAuth provider from the account. Linking one has no command: the link
 * flow binds the provider in the browser that holds the session (lib/auth/oauth/flow.ts), and the
 * CLI's session is not in a browser.
 */
import { ShroudError } from '#lib/client/api.ts';
import { SIGNED_OUT_HINT, type CommandDef } from './framework.ts';
import { need, usage } from './shared.ts';

const PROVIDERS = ['google', 'github', 'x', 'discord'] as const;
type Provider = (typeof PROVIDERS)[number];

export const zkauthCommands: CommandDef[] = [
  {
    name: 'proofs',
    summary: "this session's STARK proof and its record on chain B",
    async run(ctx) {
      const s = await ctx.client.api.zkauthStatus();
      if (!s.authenticated) throw new ShroudError('UNAUTHENTICATED', 401, `not signed in: ${SIGNED_OUT_HINT}`);
      return { data: s, fields: [['provider', s.provider], ['key hash', s.publicKey], ['on chain B', s.starknet.verified], ['contract', s.starknet.contract], ['expires', s.starknet.proofExpiry]] };
    },
  },
  {
    name: 'proofs prove',
    summary: 'prove the session key (STARK) and record the proof on chain B',
    async run(ctx) {
      const out = await ctx.client.api.zkauthProve();
      return { data: out, fields: [['verified', out.verified], ['tx', out.txHash], ['expires', out.expiresAt], ['proof', `${out.proof.stark_proof.length / 2} bytes`]] };
    },
  },
  {
    name: 'proofs verify',
    summary: "check the session's proof again, and on chain B",
    async run(ctx) {
      const out = await ctx.client.api.zkauthVerify();
      return { data: out, fields: [['valid', out.valid], ['on chain B', out.starknet.verified], ['expires', out.proofExpiry]] };
    },
  },
  {
    name: 'proofs refresh',
    summary: "a new STARK proof of the session key with a later expiry, recorded on chain B (the old one is superseded)",
    async run(ctx) {
      const out = await ctx.client.api.zkauthRefresh({ body: {} });
      return { data: out, fields: [['tx', out.txHash], ['expires', out.expiresAt], ['proof', `${out.proof.stark_proof.length / 2} bytes`]] };
    },
  },
  {
    name: 'provider unlink',
    summary: 'unlink an OAuth provider from your account (not the last way to sign in)',
    args: [{ name: 'provider', description: PROVIDERS.join(' | ') }],
    async run(ctx) {
      const provider = need(ctx.args[0], 'provider');
      if (!PROVIDERS.includes(provider as Provider)) throw usage(`provider: one of ${PROVIDERS.join(', ')}`);
      const out = await ctx.client.api.zkauthUnlink({ body: { provider: provider as Provider } });
      return { data: out, fields: [['unlinked', out.provider], ['still linked', out.remainingProviders.length ? out.remainingProviders : null]] };
    },
  },
];
