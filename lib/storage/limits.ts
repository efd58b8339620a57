/** The contract's file limit, enforced by storage (uploads.ts) and reported by GET /api/init (lib/init.ts). */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;
/** The largest request body the local emulator takes: a 100 MB file plus the multipart envelope and its other parts. */
export const MAX_BODY_BYTES = MAX_FILE_BYTES + 2 * 1024 * 1024;
