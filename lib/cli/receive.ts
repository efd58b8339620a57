/**
 * `shroud receive <link|token>`: a shared file, received as the share page receives it
 * (lib/client/storage.ts): the file's name and size from the link, the file password asked
 * for, proved here, the ciphertext downloaded through the link, checked and decrypted here. A link
 * given whole is opened at its own origin (no account, no session needed); a bare token at the
 * configured API.
 */
import { ShroudClient, ShroudError } from '#lib/client/api.ts';
import { receiveShared, sharedFileSize, shareProblem, shareRefOf, sharedInfo } from '#lib/client/storage.ts';

/**
 * What the command uses of its context: the part of commands.ts's CommandContext it needs, written
 * here so that commands.ts can list this command without an import cycle.
 */
interface ReceiveContext {
  client: ShroudClient;
  io: {
    askSecret(question: string): Promise<string>;
    progress(label: string): { stage(label: string): void; update(loaded: number, total?: number): void; stop(): void };
    writeFile(path: string, bytes: Uint8Array): Promise<string>;
  };
  args: string[];
  opts: Record<string, string | boolean | undefined>;
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);

/** The sender's file name as a name in this directory: never a path (the name is the sender's to choose). */
export function safeName(name: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/[\x00-\x1f]/g, '_');
  return base === '' || base === '.' || base === '..' ? 'shared-file' : base;
}

/** The link's reason in the recipient's words, keeping the code and status (exit codes follow it). */
const explained = (e: unknown) => (e instanceof ShroudError && e.status !== 0 ? new ShroudError(e.code, e.status, shareProblem(e), e.retryAfter) : e);

export const receive = {
  name: 'receive',
  summary: 'receive a file shared with you: its link (or token), the file password, the file decrypted here',
  args: [
    { name: 'link', description: 'the share link (https://…/share/<token>) or its token' },
    { name: 'out', description: 'where to write it (default: its name, here)', optional: true },
  ],
  options: [{ flags: '-p, --password <password>', description: 'the file password the sender gave you (asked for when left out)' }],
  async run(ctx: ReceiveContext) {
    const ref = shareRefOf(ctx.args[0] ?? '');
    const client = ref.origin && ref.origin !== ctx.client.baseUrl ? new ShroudClient({ baseUrl: ref.origin }) : ctx.client;
    try {
      const info = await sharedInfo(client, ref.token);
      const given = ctx.opts.password;
      const password = typeof given === 'string' ? given : await ctx.io.askSecret(`file password for ${info.file.filename} (${size(sharedFileSize(info))}): `);
      const bar = ctx.io.progress('proving');
      let out;
      try {
        out = await receiveShared(client, ref.token, info, password, {
          onStage: (s) => bar.stage(s === 'proving' ? 'proving (Groth16)' : s === 'verifying' ? 'checking' : s),
          onProgress: (p) => bar.update(p.loaded, p.total),
        });
      } finally {
        bar.stop();
      }
      const path = await ctx.io.writeFile(ctx.args[1] ?? safeName(out.filename), out.bytes);
      return {
        data: { path, filename: out.filename, size: out.bytes.length },
        fields: [
          ['saved', path],
          ['file', out.filename],
          ['size', size(out.bytes.length)],
        ] as [string, unknown][],
      };
    } catch (e) {
      throw explained(e);
    }
  },
};
