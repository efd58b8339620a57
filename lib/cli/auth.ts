/**
 * The account (functions/auth): register (the identity key made and encrypted here), login with a
 * password or with an OAuth provider through the browser (lib/client/oauth-loopback.ts), whoami,
 * logout; an OAuth-made account given an identity (`upgrade`). Unlinking a provider is zkauth.ts's.
 */
import { ShroudError } from '#lib/client/api.ts';
import { createIdentity } from '#lib/client/identity.ts';
import { loopbackLogin } from '#lib/client/oauth-loopback.ts';
import { SIGNED_OUT_HINT, type CommandContext, type CommandDef, type Output } from './framework.ts';
import { need, newSecret, passwordOption, secret, str, usage } from './shared.ts';

async function loginChoices(ctx: CommandContext): Promise<Output> {
  const { providers } = await ctx.client.api.zkauthProviders();
  const usable = providers.filter((p) => p.enabled);
  const lines = [
    'sign in with a password:  shroud login <username>',
    ...usable.map((p) => `sign in with ${p.name}:`.padEnd(26) + `shroud login --provider ${p.id}`),
  ];
  if (!usable.length) lines.push('(no OAuth provider is configured on this server)');
  return { data: { providers }, text: lines.join('\n') };
}

/** `login --provider <id>`: the browser signs in, the loopback gets the handoff code, the code + verifier the session. */
async function oauthLogin(ctx: CommandContext, provider: string): Promise<Output> {
  if (!ctx.io.loopback) throw usage('login --provider: this terminal signs in by redirect');
  const { providers } = await ctx.client.api.zkauthProviders();
  const known = providers.find((p) => p.id === provider);
  if (!known?.enabled) {
    const usable = providers.filter((p) => p.enabled).map((p) => p.id);
    throw usage(
      `${known ? `provider '${provider}' is not enabled` : `unknown provider '${provider.slice(0, 40)}'`}: ${usable.length ? `use one of ${usable.join(', ')}` : 'none is configured on this server'}`,
    );
  }
  const loopback = ctx.io.loopback;
  const openBrowser = ctx.opts.browser !== false && ctx.opts.noBrowser !== true;
  const out = await loopbackLogin(ctx.client, {
    provider,
    hint: ctx.args[0],
    listener: await loopback.listen(),
    show: (url) => loopback.show(url, openBrowser),
  });
  return {
    data: out,
    fields: [
      ['signed in with', known.name],
      ['user', out.user.username ?? out.user.id],
      ['zkId', out.user.zkId],
    ],
  };
}

export const authCommands: CommandDef[] = [
  {
    name: 'register',
    summary: 'create an account with a zero-knowledge identity (the key is made and encrypted here)',
    args: [{ name: 'username', description: '3–32 letters, digits, _ . -' }],
    options: [passwordOption],
    async run(ctx) {
      const username = need(ctx.args[0], 'username');
      const password = await newSecret(ctx, 'password', 'account password');
      const identity = await createIdentity(password);
      const out = await ctx.client.api.authRegister({ body: { username, password, ...identity.encrypted } });
      return {
        data: out,
        fields: [
          ['registered', out.user.username],
          ['zkId', out.user.zkId],
          ['identity key', out.user.identityPublicKey],
        ],
      };
    },
  },
  {
    name: 'login',
    summary: 'sign in with a password, or with --provider through the browser (the session is kept in the session file, mode 0600)',
    args: [{ name: 'username', description: 'your username (with --provider: the account to pre-select at the provider)', optional: true }],
    options: [
      passwordOption,
      { flags: '--provider <id>', description: 'sign in with an OAuth provider (`shroud login` lists them)' },
      { flags: '--no-browser', description: 'with --provider: print the sign-in URL instead of opening a browser' },
    ],
    async run(ctx) {
      const provider = str(ctx.opts.provider);
      if (provider !== undefined) return oauthLogin(ctx, provider);
      const username = ctx.args[0];
      if (!username) return loginChoices(ctx);
      const password = await secret(ctx, 'password', `account password for ${username}: `);
      const out = await ctx.client.api.authLogin({ body: { username, password } });
      return {
        data: out,
        fields: [
          ['signed in as', out.user.username],
          ['zkId', out.user.zkId],
        ],
      };
    },
  },
  {
    name: 'whoami',
    summary: 'who this session is',
    async run(ctx) {
      const s = await ctx.client.api.authSession();
      if (!s.authenticated) throw new ShroudError('UNAUTHENTICATED', 401, `not signed in: ${SIGNED_OUT_HINT}`);
      return {
        data: s,
        fields: [
          ['username', s.user.username],
          ['id', s.user.id],
          ['zkId', s.user.zkId],
        ],
      };
    },
  },
  {
    name: 'logout',
    summary: 'end the session here and on the server',
    async run(ctx) {
      const out = await ctx.client.api.authLogout();
      await ctx.io.clearSession();
      return { data: out, text: 'signed out' };
    },
  },
  {
    name: 'upgrade',
    summary: 'give an account made by an OAuth login a zero-knowledge identity (its key made and encrypted here)',
    options: [{ flags: '-p, --password <password>', description: 'the new password that encrypts your identity key (asked for twice when left out)' }],
    async run(ctx) {
      const password = await newSecret(ctx, 'password', 'identity key password');
      const identity = await createIdentity(password);
      const out = await ctx.client.api.authUpgradeLegacy({ body: identity.encrypted });
      return {
        data: out,
        fields: [
          ['upgraded', out.user.username ?? out.user.id],
          ['zkId', out.user.zkId],
          ['identity key', out.user.identityPublicKey],
        ],
      };
    },
  },
];
