/**
 * Chain B beyond wallets (functions/chainb): an identity proof — the account's identity key,
 * unlocked here with its password, signs the canonical message (lib/client/identity.ts) and the
 * service records it in chain B's registry — read back by its id; and a chain B transaction by
 * hash (what a `submitted` transfer says to follow). Chain B wallets, balances and transfers are
 * wallets.ts's (`wallets`, `balance`, `send` with a chain B wallet).
 */
import { ShroudError } from '#lib/client/api.ts';
import { identityProofRequest, unlockIdentity } from '#lib/client/identity.ts';
import type { CommandDef } from './framework.ts';
import { need, secret, str, STRK_DECIMALS, wholeUnits } from './shared.ts';

export const chainbCommands: CommandDef[] = [
  {
    name: 'chainb prove',
    summary: 'prove your identity on chain B: your identity key (unlocked here, never sent) signs a fresh statement, the service records it in the registry',
    options: [
      {
        flags: '-p, --password <password>',
        description: 'the password your identity key is encrypted with: the account password you registered with (asked for when left out)',
      },
    ],
    async run(ctx) {
      const blob = await ctx.client.api.authIdentity();
      const password = await secret(ctx, 'password', `identity key password for ${blob.zkId} (the account password you registered with): `);
      const privateKey = await unlockIdentity(blob, password).catch(() => {
        throw new ShroudError(
          'WRONG_PASSWORD',
          401,
          'that password does not open your identity key: it is the account password you registered with (or chose at `shroud upgrade`)',
        );
      });
      const out = await ctx.client.api.chainbSubmitProof({
        body: await identityProofRequest(blob.zkId, { privateKey, publicKeyBase64: blob.identityPublicKey }),
      });
      return {
        data: out,
        fields: [
          ['proof', out.proofId],
          ['zkId', blob.zkId],
          ['tx', out.txHash],
          ['registry', out.contractAddress],
          ['read it', `shroud chainb proof ${out.proofId}`],
        ],
      };
    },
  },
  {
    name: 'chainb proof',
    summary: "an identity proof as chain B's registry holds it (public: no sign-in needed)",
    args: [{ name: 'proofId', description: 'the proof id `shroud chainb prove` printed' }],
    async run(ctx) {
      const out = await ctx.client.api.chainbProof({ params: { proofId: need(ctx.args[0], 'proofId') } });
      const p = out.proof;
      return {
        data: out,
        fields: [
          ['proof', out.proofId],
          ['zkId', p.zk_id],
          ['hash', p.proof_hash],
          ['owner', p.owner],
          ['at', new Date(p.timestamp * 1000).toISOString()],
          ['registry', out.contractAddress],
        ],
      };
    },
  },
  {
    name: 'chainb tx',
    summary: 'a chain B transaction: landed or reverted, its fee in STRK, its events (follows a `submitted` send)',
    args: [{ name: 'hash', description: 'the transaction hash (0x…)' }],
    async run(ctx) {
      const { transaction: t } = await ctx.client.api.chainbTx({ params: { hash: need(ctx.args[0], 'hash') } });
      return {
        data: t,
        fields: [
          ['tx', t.hash],
          ['status', t.revertReason ? `${t.status}: ${t.revertReason}` : t.status],
          ['type', t.type],
          ['sender', t.sender],
          ['nonce', t.nonce],
          ['fee', `${wholeUnits(t.fee, STRK_DECIMALS)} STRK`],
          ['block', t.blockNumber],
          ['events', t.events.length],
        ],
      };
    },
  },
  {
    name: 'chainb balance',
    summary: "any chain B address's balance, in whole tokens (balances are public; your own wallets: `shroud balance --wallet <name>`)",
    args: [{ name: 'address', description: 'the chain B address (0x…)' }],
    options: [{ flags: '-t, --token <token>', description: 'STRK (default), ETH or a token address' }],
    async run(ctx) {
      const token = str(ctx.opts.token);
      const out = await ctx.client.api.chainbBalance({ params: { address: need(ctx.args[0], 'address') }, query: token ? { token } : {} });
      return {
        data: out,
        fields: [
          ['address', out.address],
          ['balance', `${out.formatted} ${out.symbol}`],
          ['token', out.token],
        ],
      };
    },
  },
];
