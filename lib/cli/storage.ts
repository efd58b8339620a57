/**
 * Encrypted files (functions/storage): list, upload (encrypted and proved here), download (proved,
 * checked and decrypted here), share links and their revocation, delete; `receive` (receive.ts)
 * opens a link someone shared; replicated pinning is storage-replicas.ts's.
 */
import { ShroudError } from '#lib/client/api.ts';
import { downloadFile, listAllFiles, uploadFile, type Stage } from '#lib/client/storage.ts';
import type { CommandDef, OptionDef } from './framework.ts';
import { receive } from './receive.ts';
import { need, newSecret, secret, str, usage } from './shared.ts';

const kb = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

const STAGE_LABEL: Record<Stage, string> = {
  encrypting: 'encrypting',
  proving: 'proving (Groth16)',
  uploading: 'uploading',
  downloading: 'downloading',
  verifying: 'checking',
  decrypting: 'decrypting',
};

/** Above 4 MiB a ciphertext goes by a presigned PUT (a Lambda request carries 6 MB at most, with the multipart's other parts). */
const PRESIGNED_ABOVE = 4 * 1024 * 1024;

const filePasswordOption: OptionDef = {
  flags: '-p, --password <password>',
  description: "the file's password, the one it was uploaded with (asked for when left out)",
};

/** The SHA-256 of bytes as hex (WebCrypto: the same in Node and the browser terminal). */
async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const storageCommands: CommandDef[] = [
  {
    name: 'files',
    summary: 'your encrypted files, newest first',
    async run(ctx) {
      const files = await listAllFiles(ctx.client);
      return {
        data: files,
        table: {
          columns: ['id', 'name', 'size', 'created', 'cid'],
          rows: files.map((f) => [f.id, f.originalName, kb(f.originalSize), f.createdAt.slice(0, 19).replace('T', ' '), f.cid]),
        },
        empty: 'no files yet: `shroud upload <file>`',
      };
    },
  },
  {
    name: 'upload',
    summary: 'encrypt a file here, prove the password (Groth16) and upload the ciphertext',
    args: [{ name: 'file', description: 'the file to upload' }],
    options: [
      {
        flags: '-p, --password <password>',
        description: "the file's own password, which encrypts it (asked for twice when left out; not your account password)",
      },
      { flags: '-n, --name <name>', description: 'the name to store (default: the file name)' },
    ],
    async run(ctx) {
      const { name, bytes } = await ctx.io.readFile(need(ctx.args[0], 'file'));
      const password = await newSecret(ctx, 'password', `file password for ${str(ctx.opts.name) ?? name}`);
      const fileSha256 = await sha256Of(bytes);
      const bar = ctx.io.progress('encrypting');
      try {
        const out = await uploadFile(ctx.client, bytes, password, str(ctx.opts.name) ?? name, {
          ...(ctx.io.presignedUploads ? { presignedAbove: PRESIGNED_ABOVE } : {}),
          onStage: (s) => bar.stage(STAGE_LABEL[s]),
          onProgress: (p) => bar.update(p.loaded, p.total),
        });
        bar.stop();
        // The file's own SHA-256 (what `sha256sum` prints for it here); the server keeps the ciphertext's.
        return {
          data: { ...out, sha256: fileSha256, ciphertextChecksum: out.checksum },
          fields: [
            ['uploaded', out.filename],
            ['id', out.id],
            ['cid', out.cid],
            ['size', kb(out.size)],
            ['sha-256', fileSha256],
            ['ciphertext', `${out.checksum} (${kb(out.encryptedSize)} encrypted)`],
          ],
        };
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'download',
    summary: 'prove the password, download, check and decrypt a file',
    args: [
      { name: 'id', description: 'the file id (or its CID)' },
      { name: 'out', description: 'where to write it (default: its name, here)', optional: true },
    ],
    options: [filePasswordOption],
    async run(ctx) {
      const id = need(ctx.args[0], 'id');
      const password = await secret(ctx, 'password', `file password for ${id} (the one it was uploaded with): `);
      const bar = ctx.io.progress('proving');
      try {
        const out = await downloadFile(ctx.client, id, password, {
          onStage: (s) => bar.stage(STAGE_LABEL[s]),
          onProgress: (p) => bar.update(p.loaded, p.total),
        }).catch((e: unknown) => {
          // The proof is of the file password: the server refusing it means the password is not this file's.
          if (e instanceof ShroudError && e.code === 'INVALID_PROOF')
            throw new ShroudError('WRONG_FILE_PASSWORD', e.status, `wrong file password for ${id}: it is not the password the file was uploaded with`);
          throw e;
        });
        bar.stop();
        const path = await ctx.io.writeFile(ctx.args[1] ?? out.filename, out.bytes);
        const sha256 = await sha256Of(out.bytes);
        return {
          data: { path, size: out.bytes.length, sha256 },
          fields: [
            ['saved', path],
            ['size', kb(out.bytes.length)],
            ['sha-256', sha256],
          ],
        };
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'share',
    summary: 'a share link for a file',
    args: [{ name: 'id', description: 'the file id' }],
    options: [
      {
        flags: '-e, --expires <time>',
        description: 'how long the link lives: hours (up to 720), or with a unit: 600s, 10m, 48h, 7d (30 days at most)',
        default: '24',
      },
    ],
    async run(ctx) {
      const given = String(ctx.opts.expires ?? '24');
      // With a unit the server reads exactly that; a bare number is hours (below 720).
      const expiresIn = /^\d{1,9}[smhd]$/.test(given) ? given : Number(given);
      if (typeof expiresIn === 'number' && !Number.isInteger(expiresIn)) throw usage('--expires: hours, or a number with s, m, h or d (e.g. 7d)');
      const out = await ctx.client.api.storageShare({ body: { fileId: need(ctx.args[0], 'id'), expiresIn } });
      return {
        data: out,
        fields: [
          ['link', out.shareUrl],
          ['expires', out.expiresAt],
        ],
      };
    },
  },
  {
    name: 'shares',
    summary: 'your share links, newest first (never their tokens)',
    options: [{ flags: '-l, --limit <n>', description: '1–100', default: '20' }],
    async run(ctx) {
      const { shares: links } = await ctx.client.api.storageShares({ query: { limit: String(ctx.opts.limit ?? 20) } });
      return {
        data: links,
        table: {
          columns: ['id', 'file', 'status', 'expires', 'opened'],
          rows: links.map((l) => [l.id, l.filename ?? `${l.fileId} (deleted)`, l.status, l.expiresAt.slice(0, 19).replace('T', ' '), l.accessCount]),
        },
        empty: 'no share links: `shroud share <file id>`',
      };
    },
  },
  {
    name: 'shares revoke',
    summary: 'revoke a share link: it stops opening at once',
    args: [{ name: 'id', description: 'the link id (`shroud shares`)' }],
    async run(ctx) {
      const out = await ctx.client.api.storageSharesRevoke({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `revoked ${ctx.args[0]}` };
    },
  },
  receive,
  {
    name: 'rm',
    summary: 'delete a file',
    args: [{ name: 'id', description: 'the file id' }],
    async run(ctx) {
      const out = await ctx.client.api.storageDeleteA({ params: { id: need(ctx.args[0], 'id') } });
      return { data: out, text: `deleted ${ctx.args[0]}` };
    },
  },
];
