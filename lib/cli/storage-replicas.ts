/**
 * Replicated pinning (functions/storage replica-pin, replica-status): at least three copies of a
 * file's blocks, each on its own storage target, audited and repaired by the service; the status
 * can carry a storage proof answering a challenge of yours.
 */
import { listAllFiles } from '#lib/client/storage.ts';
import type { CommandDef } from './framework.ts';
import { need, str, usage, type BaseContext } from './shared.ts';

type Replica = Awaited<ReturnType<BaseContext['client']['api']['storageReplicaStatus']>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A file id (`shroud files`) or a CID: the CID of it. */
async function cidOf(ctx: BaseContext, given: string): Promise<string> {
  if (!UUID.test(given)) return given;
  const file = (await listAllFiles(ctx.client)).find((f) => f.id === given);
  if (!file) throw usage(`no file ${given} of yours: \`shroud files\` lists them (a CID is taken as well)`);
  return file.cid;
}

const replicaFields = (r: Replica): [string, unknown][] => [
  ['cid', r.cid],
  ['status', r.reason ? `${r.status}: ${r.reason}` : r.status],
  ['replicas', r.replicas],
  ...r.targets.map((t) => [`  ${t.name}`, t.reason ? `${t.state}: ${t.reason}` : t.state] as [string, unknown]),
  ['repairs', r.repairs],
  ['last audit', r.lastAudit ? `${r.lastAudit.at} (${r.lastAudit.checked} checked, ${r.lastAudit.repaired} repaired)` : null],
  ['until', r.expiresAt],
  ...(r.storageProof
    ? ([
        ['storage proof', r.storageProof],
        ['challenge', r.challenge],
        ['proved', r.provedAt],
      ] as [string, unknown][])
    : []),
];

export const replicaCommands: CommandDef[] = [
  {
    name: 'replica pin',
    summary: "keep copies of a file's blocks on independent storage targets (at least 3); again renews the term",
    args: [{ name: 'file', description: 'the file id (`shroud files`) or its CID' }],
    options: [{ flags: '-r, --replicas <n>', description: 'how many copies: 3 up to the number of targets', default: '3' }],
    async run(ctx) {
      const replicas = Number(str(ctx.opts.replicas) ?? '3');
      if (!Number.isInteger(replicas) || replicas < 1) throw usage('--replicas: a whole number, 3 or more');
      const out = await ctx.client.api.storageReplicaPin({ body: { cid: await cidOf(ctx, need(ctx.args[0], 'file')), replicas } });
      return { data: out, fields: [...replicaFields(out), ['follow', `shroud replica status ${out.cid}`]] };
    },
  },
  {
    name: 'replica status',
    summary: "where a pinned file's copies are: each target's state, audits and repairs; --challenge asks for a storage proof",
    args: [{ name: 'file', description: 'the file id (`shroud files`) or its CID' }],
    options: [{ flags: '--challenge <hex>', description: '64 hex characters of your choosing: the proof answers them (fresh proof, not a replay)' }],
    async run(ctx) {
      const challenge = str(ctx.opts.challenge);
      if (challenge !== undefined && !/^[0-9a-f]{64}$/i.test(challenge)) throw usage('--challenge: 64 hex characters');
      const out = await ctx.client.api.storageReplicaStatus({
        params: { cid: await cidOf(ctx, need(ctx.args[0], 'file')) },
        query: challenge ? { challenge } : {},
      });
      return { data: out, fields: replicaFields(out) };
    },
  },
];
