import type { Intent, ShareLinkFact } from '../intent-types.ts';
import { fileFor, filesLead } from '../intent-helpers.ts';
import { shroudCommand } from '../commands.ts';

/** Encrypted files and share links. */
export const fileIntents: Intent[] = [
  {
    id: 'upload-failed',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bupload\w*\b.*\b(fail|error|refus|reject|not work|401|413|422)\w*|\b(fail|error)\w*\b.*\bupload/i,
    needs: ['files'],
    terms: 'upload errors INVALID_PROOF CHECKSUM_MISMATCH FILE_TOO_LARGE',
    route: ['POST', '/api/storage/upload'],
    build: (_s, ctx) => ({
      lead: `An upload is refused with 401 INVALID_PROOF when the proof does not verify against the password circuit with publicSignals[0] equal to the commitment, 422 CHECKSUM_MISMATCH when the checksum does not match the bytes received, 413 FILE_TOO_LARGE above 100 MB, and 429 past 30 storage requests a minute; a failed upload leaves nothing behind, so retry it.${ctx.files ? ` You have ${ctx.files.length} stored file${ctx.files.length === 1 ? '' : 's'}.` : ''}`,
      suggestions: [{ command: shroudCommand('files'), description: 'list your stored files to see what arrived' }],
    }),
  },
  {
    id: 'share-links',
    reports: true,
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(my|which|what|when|list|show)\b.*\b(shared|share ?links?)\b|\b(shared|share ?links?)\b.*\b(expire\w*|active|revoke\w*|opened|accessed|list)\b|\b(revoke|cancel|disable|stop)\w*\b.*\bshar(ed|e ?links?|ing)\b/i,
    unless: /\bfor \d+\s*(h|hours?|days?|d|minutes?|m)\b/i,
    needs: ['shares'],
    terms: 'share links list expiresAt revoke',
    route: ['GET', '/api/storage/shares'],
    build: (s, ctx) => {
      const own = ctx.shares ?? [];
      const lower = ctx.message.toLowerCase();
      // A link named by its file (the message names it) or by its id, else all of them.
      const named = own.filter((l) => (l.filename && l.filename.length >= 3 && lower.includes(l.filename.toLowerCase())) || lower.includes(l.id));
      const shown = named.length ? named : own;
      const active = shown.filter((l) => l.status === 'active');
      const revoke = /\b(revoke|cancel|stop|unshare|disable)\b/i.test(ctx.message);
      const safeId = (id: string) => (/^[0-9a-z]{21}$/.test(id) ? id : '<link id>');
      if (!own.length)
        return {
          lead: 'You have no share links (links made before share links were listed are not shown; they lapse on their own within 30 days).',
          suggestions: [{ command: shroudCommand('shares'), description: 'list your share links' }],
        };
      // File names are the user's data: quoted as JSON strings in the text, never in a command.
      const describe = (l: ShareLinkFact) =>
        `${l.filename === null ? `file ${l.fileId} (deleted)` : JSON.stringify(l.filename)}: ${l.status === 'active' ? `expires ${l.expiresAt}` : l.status === 'expired' ? `expired ${l.expiresAt}` : 'revoked'}, opened ${l.accessCount} time${l.accessCount === 1 ? '' : 's'}`;
      const lead = `${named.length ? 'That share link' : `You have ${own.length} share link${own.length === 1 ? '' : 's'}, ${active.length} active`}: ${shown.slice(0, 5).map(describe).join('; ')}${shown.length > 5 ? '; …' : ''}.`;
      const target = active[0];
      const suggestions = [{ command: shroudCommand('shares'), description: 'list your share links' }];
      if (revoke && target)
        suggestions.push({ command: shroudCommand('shares revoke', [safeId(target.id)]), description: 'revoke that share link (run it yourself)' });
      return { lead, suggestions };
    },
  },
  {
    id: 'list-files',
    reports: true,
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(list|show|what|which|see)\b.*\b(my )?files\b|\bmy files\b|\bhow many files\b/i,
    needs: ['files'],
    terms: 'list files storage',
    route: ['GET', '/api/storage/files'],
    build: (_s, ctx) => ({
      lead: ctx.files ? filesLead(ctx.files) : '`shroud files` lists your files, newest first.',
      suggestions: [{ command: shroudCommand('files'), description: 'list your files' }],
    }),
  },
  {
    id: 'share',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bshare\b|\bshare ?link\b/i,
    needs: ['files'],
    terms: 'share link expiresIn shareUrl',
    route: ['POST', '/api/storage/share'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      const hours = s.hours && s.hours >= 1 && s.hours <= 720 ? s.hours : 24;
      return {
        lead: `To share ${f.label} for ${hours} hour${hours === 1 ? '' : 's'}, create a share link (\`--expires\` in hours, up to 720: the link lives between one minute and 30 days).`,
        suggestions: [{ command: shroudCommand('share', [f.id], { expires: hours }), description: `share link valid ${hours} h` }],
      };
    },
  },
  {
    id: 'upload',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bupload\b/i,
    terms: 'upload multipart proof commitment checksum encryptFile',
    route: ['POST', '/api/storage/upload'],
    build: () => ({
      lead: 'Files are encrypted on your side first: `shroud upload` encrypts the file with your password, proves you know it (Groth16) and uploads the ciphertext in one go (lib/client/storage.ts does the same for programs).',
      suggestions: [{ command: shroudCommand('upload', ['<file>']), description: 'encrypt, prove and upload a file (it asks for the password)' }],
    }),
  },
  {
    id: 'download',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\bdownload\b/i,
    needs: ['files'],
    terms: 'download proof fileId X-ZK-Proof',
    route: ['POST', '/api/storage/download'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      return {
        lead: `To download ${f.label}, prove you know its password: \`shroud download\` makes the proof, checks the bytes against their CID and decrypts them on your side.`,
        suggestions: [{ command: shroudCommand('download', [f.id]), description: 'download and decrypt (it asks for the password)' }],
      };
    },
  },
  {
    id: 'delete-file',
    doc: 'docs/storage.md#encrypted-storage-apistorage',
    test: /\b(delete|remove)\b.*(\bfile\b|\b[\w-]+\.[a-z0-9]{1,5}\b)/i,
    needs: ['files'],
    terms: 'delete file unpin',
    route: ['DELETE', '/api/storage/files/:fileId'],
    build: (s, ctx) => {
      const f = fileFor(s, ctx);
      return {
        lead: `Deleting ${f.label} cannot be undone; run it yourself if you mean it.`,
        suggestions: [{ command: shroudCommand('rm', [f.id]), description: 'delete the file (irreversible)' }],
      };
    },
  },
];
