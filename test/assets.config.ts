import { defineConfig } from 'vitest/config';

/**
 * `npm run test:assets`: API tests against `npm run start:assets` (the synthesized assets, the
 * AWS-only services on Moto) through SHROUD_BASE_URL (test/support/asset-server.ts,
 * test/support/runtime.ts), with the test workers' table and bucket set to the server's. Run after
 * `npm run synth` (CI's .ci/run does). The chosen tests of each file talk to the API over HTTP
 * only (no moved clock, no runtime environment of their own, no embedded services), and cover a
 * wallet key sealed as a KMS data key signing a compression that chain A executes (over the
 * rehearsal's JSON-RPC front), a replica pin through SQS and the worker to a Pinata and two S3
 * targets, the attestation issuer's signature, a streamed assistant answer, uploads and downloads,
 * the identity routes, chain B proofs, social login, the zk-toolkit and docs routes and the
 * $default route, and a read of each remaining group (test/api/group-reads.test.ts). The rest of
 * each file is not selected (the test name pattern), not skipped in code. Not covered: the moves of
 * decompression, compressed transfers and tokens, bridge, transfer, swap and rewards, which need
 * Photon's listings and proofs (docs/deploy.md, "Not covered by the rehearsal").
 */
export const ASSET_TESTS: Record<string, string[]> = {
  'test/api/platform.test.ts': [
    'answers an unknown route with 404 NOT_FOUND',
    'answers a known path with a wrong method with 405 and Allow',
    'stores a report and lists it for its anonymous reporter only',
  ],
  'test/api/auth.test.ts': [
    'creates an account: 201 {message, user: {id, username, zkId, identityPublicKey}}',
    'logout ends the session in DynamoDB: the old cookie value stays dead',
    'wrong username and wrong password give the same 401',
  ],
  'test/api/wallets.test.ts': [
    'creates chain A and chain B wallets; the first on a chain is active; the key is never returned',
    'imports a chain A key (base58 or JSON bytes) once; a malformed key is 400',
    'lists (optionally by chain), reads, renames, switches the active wallet, deletes',
    "someone else's wallet, or an unknown id, is 404 WALLET_NOT_FOUND everywhere",
    'airdrops test coins on localnet and shows the ordinary balance exactly',
    "signs with the wallet's own key: a compression of 1.5 lands, the coins leave the wallet and show compressed",
  ],
  'test/api/ai.test.ts': [
    'streams server-sent events: meta first, done last, each frame `event:` + one `data:` line',
    "answers a task with the command filled in from the message and the caller's own wallet, citing the documentation",
  ],
  'test/api/storage.test.ts': [
    'variant A: upload, list in both shapes, download with the proof in headers, delete',
    'variant B: upload keeps iv and salt, download by POST, delete',
    'CHECKSUM_MISMATCH on upload leaves no block, record or pin behind',
    'a large direct upload is served by redirect to its data object, trusted by the ETag it was written with',
  ],
  'test/api/storage-replicas.test.ts': ['completes through the queue and the worker: pinned on every target, and its proof verifies'],
  'test/api/attest.test.ts': [
    'answers valid for a proof of the commitment, false otherwise, 400 when malformed',
    'lists each schema with its circuit, the pinned verification key hash and who fixes each signal',
    'issues a signed attestation that verifies; the age is nowhere in it',
  ],
  'test/api/zk-toolkit.test.ts': [
    'poseidon: circomlib vectors, one input or several',
    'split 3 of 5, any 3 shares combine to the secret',
    'a point off the curve is 400 NOT_ON_CURVE',
  ],
  'test/api/chainb.test.ts': ["a key that is not the zkId's is 401, even with a valid signature by that key", 'validates its fields (400, naming the field)'],
  'test/api/zkauth.test.ts': [
    'refuses an unknown provider (400) and a disabled one (PROVIDER_UNAVAILABLE)',
    'answers the status of a signed-out client with authenticated: false only',
  ],
  'test/api/group-reads.test.ts': [
    'proofs: a new user has no proof history and counts nothing',
    'transfer: the pools are listed; an unknown nullifier is unspent',
    'swap: a new user has no orders and no one-time addresses',
    'bridge: a new user has no history; an unknown record is 404',
    'rewards: the program and the leaderboard are public; a new user has no points',
  ],
  'test/api/openapi.test.ts': [
    'GET /api/openapi.json is the generated document',
    'GET /api/docs is the reference page, its scripts served by us under a policy that allows only them',
  ],
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default defineConfig({
  test: {
    include: Object.keys(ASSET_TESTS),
    testNamePattern: new RegExp(`(${Object.values(ASSET_TESTS).flat().map(escapeRegExp).join('|')})$`),
    pool: 'forks',
    globalSetup: ['test/support/asset-server.ts'],
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
