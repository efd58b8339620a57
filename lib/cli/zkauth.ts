/**
 * The session's STARK proof (functions/zkauth): its state, a new proof recorded on chain B, its
 * check; and linking (through the browser and the loopback, lib/auth/oauth/handoff.ts) or
 * unlinking an OAuth provider.
 */
import { ShroudError } from '#lib/client/api.ts';
import { loopbackLink } from '#lib/client/oauth-loopback.ts';
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
      return {
        data: s,
        fields: [
          ['provider', s.provider],
          ['key hash', s.publicKey],
          ['on chain B', s.starknet.verified],
          ['contract', s.starknet.contract],
          ['expires', s.starknet.proofExpiry],
        ],
      };
    },
  },
  {
    name: 'proofs prove',
    summary: 'prove the session key (STARK) and record the proof on chain B',
    async run(ctx) {
      const out = await ctx.client.api.zkauthProve();
      return {
        data: out,
        fields: [
          ['verified', out.verified],
          ['tx', out.txHash],
          ['expires', out.expiresAt],
          ['proof', `${out.proof.stark_proof.length / 2} bytes`],
        ],
      };
    },
  },
  {
    name: 'proofs verify',
    summary: "check the session's proof again, and on chain B",
    async run(ctx) {
      const out = await ctx.client.api.zkauthVerify();
      return {
        data: out,
        fields: [
          ['valid', out.valid],
          ['on chain B', out.starknet.verified],
          ['expires', out.proofExpiry],
        ],
      };
    },
  },
  {
    name: 'proofs refresh',
    summary: 'a new STARK proof of the session key with a later expiry, recorded on chain B (the old one is superseded)',
    async run(ctx) {
      const out = await ctx.client.api.zkauthRefresh({ body: {} });
      return {
        data: out,
        fields: [
          ['tx', out.txHash],
          ['expires', out.expiresAt],
          ['proof', `${out.proof.stark_proof.length / 2} bytes`],
        ],
      };
    },
  },
  {
    name: 'provider link',
    summary: 'link an OAuth provider to your account through the browser: you can then sign in with it too',
    args: [
      { name: 'provider', description: PROVIDERS.join(' | ') },
      { name: 'account', description: 'the account to pre-select at the provider', optional: true },
    ],
    options: [{ flags: '--no-browser', description: 'print the provider’s sign-in URL instead of opening a browser' }],
    async run(ctx) {
      const provider = need(ctx.args[0], 'provider');
      if (!PROVIDERS.includes(provider as Provider)) throw usage(`provider: one of ${PROVIDERS.join(', ')}`);
      if (!ctx.io.loopback) throw usage('provider link: this terminal links in the browser page (Settings), not through a loopback');
      const { providers } = await ctx.client.api.zkauthProviders();
      const known = providers.find((p) => p.id === provider);
      if (!known?.enabled) throw usage(`provider '${provider}' is not enabled on this server`);
      const loopback = ctx.io.loopback;
      const openBrowser = ctx.opts.browser !== false && ctx.opts.noBrowser !== true;
      const out = await loopbackLink(ctx.client, {
        provider,
        hint: ctx.args[1],
        listener: await loopback.listen(),
        show: (url) => loopback.show(url, openBrowser),
      });
      return {
        data: out,
        fields: [
          ['linked', known.name],
          ['user', out.user.username ?? out.user.id],
          ['sign in with it', `shroud login --provider ${provider}`],
        ],
      };
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
      return {
        data: out,
        fields: [
          ['unlinked', out.provider],
          ['still linked', out.remainingProviders.length ? out.remainingProviders : null],
        ],
      };
    },
  },
];
