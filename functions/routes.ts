/**
 * THE route table: every endpoint of the API, and nothing declared anywhere else. The CDK stack
 * makes one function and one API route per row, the local runtime routes by it, `npm run -s
 * routes` prints it, and each handler reads its own row (auth, rate limit, envelope) from it.
 * What a row is, and the groups' settings, are `lib/http`'s (route.ts, groups.ts).
 */
import { groups } from '#lib/http/groups.ts';
import type { Auth, Method, Route } from '#lib/http/route.ts';
import type { GroupName } from '#lib/http/groups.ts';

const r = (method: Method, path: string, group: GroupName, file: string, auth: Auth, extra: Partial<Route> = {}): Route => ({
  method,
  path,
  group,
  handler: `functions/${group}/${file}.ts`,
  auth,
  ...extra,
});

export const routes: Route[] = [
  // init
  r('GET', '/api/init', 'init', 'get', 'optional'),
  // bug-reports
  r('POST', '/api/bug-reports', 'bug-reports', 'create', 'optional', { idempotent: true }),
  r('GET', '/api/bug-reports', 'bug-reports', 'list', 'optional'),
  // auth
  r('POST', '/api/auth/register', 'auth', 'register', 'none'),
  r('POST', '/api/auth/login', 'auth', 'login', 'none'),
  r('POST', '/api/auth/logout', 'auth', 'logout', 'none'),
  r('GET', '/api/auth/session', 'auth', 'session', 'optional'),
  r('GET', '/api/auth/me', 'auth', 'me', 'session'),
  r('GET', '/api/auth/identity', 'auth', 'identity', 'session'),
  r('POST', '/api/auth/upgrade-legacy', 'auth', 'upgrade-legacy', 'session'),
  // chainb
  r('POST', '/api/chainb/submit-proof', 'chainb', 'submit-proof', 'optional'),
  r('GET', '/api/chainb/proofs/:proofId', 'chainb', 'proof', 'none'),
  // zkauth
  r('GET', '/api/zkauth/providers', 'zkauth', 'providers', 'none'),
  r('GET', '/api/zkauth/login', 'zkauth', 'login', 'none'),
  r('GET', '/api/zkauth/callback/:provider', 'zkauth', 'callback', 'optional'),
  r('GET', '/api/zkauth/link', 'zkauth', 'link', 'session'),
  r('POST', '/api/zkauth/unlink', 'zkauth', 'unlink', 'session'),
  r('GET', '/api/zkauth/status', 'zkauth', 'status', 'optional'),
  r('POST', '/api/zkauth/prove', 'zkauth', 'prove', 'session', { profile: 'crypto' }),
  r('POST', '/api/zkauth/verify', 'zkauth', 'verify', 'optional', { profile: 'crypto' }),
  r('POST', '/api/zkauth/refresh', 'zkauth', 'refresh', 'optional', { profile: 'crypto' }),
  r('POST', '/api/zkauth/logout', 'zkauth', 'logout', 'optional'),
  // zk-toolkit: public (auth none: pure functions of the request, no user data; the 200/min limit
  // counts per source IP). `crypto` where the work is slow (Pedersen, Groth16) or the circuits
  // layer is needed (the proof routes read the artifacts at /opt).
  // proof/generate and proof/verify are `optional`: a signed-in caller's proofs go to /api/proofs.
  r('POST', '/api/zk-toolkit/hash/poseidon', 'zk-toolkit', 'hash-poseidon', 'none'),
  r('POST', '/api/zk-toolkit/hash/mimc', 'zk-toolkit', 'hash-mimc', 'none'),
  r('POST', '/api/zk-toolkit/hash/pedersen', 'zk-toolkit', 'hash-pedersen', 'none', { profile: 'crypto' }),
  r('POST', '/api/zk-toolkit/field/add', 'zk-toolkit', 'field-add', 'none'),
  r('POST', '/api/zk-toolkit/field/sub', 'zk-toolkit', 'field-sub', 'none'),
  r('POST', '/api/zk-toolkit/field/mul', 'zk-toolkit', 'field-mul', 'none'),
  r('POST', '/api/zk-toolkit/field/div', 'zk-toolkit', 'field-div', 'none'),
  r('POST', '/api/zk-toolkit/field/inv', 'zk-toolkit', 'field-inv', 'none'),
  r('POST', '/api/zk-toolkit/field/pow', 'zk-toolkit', 'field-pow', 'none'),
  r('POST', '/api/zk-toolkit/field/sqrt', 'zk-toolkit', 'field-sqrt', 'none'),
  r('GET', '/api/zk-toolkit/field/random', 'zk-toolkit', 'field-random', 'none'),
  r('GET', '/api/zk-toolkit/field/prime', 'zk-toolkit', 'field-prime', 'none'),
  r('GET', '/api/zk-toolkit/ec/base', 'zk-toolkit', 'ec-base', 'none'),
  r('POST', '/api/zk-toolkit/ec/mulbase', 'zk-toolkit', 'ec-mulbase', 'none'),
  r('POST', '/api/zk-toolkit/ec/add', 'zk-toolkit', 'ec-add', 'none'),
  r('POST', '/api/zk-toolkit/ec/mul', 'zk-toolkit', 'ec-mul', 'none'),
  r('POST', '/api/zk-toolkit/ec/isoncurve', 'zk-toolkit', 'ec-isoncurve', 'none'),
  r('GET', '/api/zk-toolkit/ec/params', 'zk-toolkit', 'ec-params', 'none'),
  r('POST', '/api/zk-toolkit/shamir/split', 'zk-toolkit', 'shamir-split', 'none'),
  r('POST', '/api/zk-toolkit/shamir/combine', 'zk-toolkit', 'shamir-combine', 'none'),
  r('POST', '/api/zk-toolkit/proof/generate', 'zk-toolkit', 'proof-generate', 'optional', { profile: 'crypto', timeout: 29 }),
  r('POST', '/api/zk-toolkit/proof/verify', 'zk-toolkit', 'proof-verify', 'optional', { profile: 'crypto' }),
  r('GET', '/api/zk-toolkit/proof/circuits', 'zk-toolkit', 'proof-circuits', 'none', { profile: 'crypto' }),
  r('GET', '/api/zk-toolkit/proof/circuits/:name/:artifact', 'zk-toolkit', 'proof-artifact', 'none', { profile: 'crypto' }),
  // storage
  r('POST', '/api/storage/upload', 'storage', 'upload', 'session', { profile: 'crypto', timeout: 29, idempotent: true, streamRequest: true }),
  r('POST', '/api/storage/upload-url', 'storage', 'upload-url', 'session', { idempotent: true }),
  r('GET', '/api/storage/list', 'storage', 'list', 'session'),
  r('GET', '/api/storage/files', 'storage', 'files', 'session'),
  r('GET', '/api/storage/download/:cid', 'storage', 'download-cid', 'session', { profile: 'crypto', timeout: 29 }),
  r('POST', '/api/storage/download', 'storage', 'download', 'session', { profile: 'crypto', timeout: 29 }),
  // The operation ids of the two deletes were named by their old handler files (delete-a, delete-b);
  // they are published (functions/docs/openapi.json, lib/client/operations.generated.ts), so they stay.
  r('DELETE', '/api/storage/:id', 'storage', 'delete', 'session', { timeout: 29, operationId: 'storageDeleteA' }),
  r('DELETE', '/api/storage/files/:fileId', 'storage', 'files-delete', 'session', { timeout: 29, operationId: 'storageDeleteB' }),
  r('POST', '/api/storage/share', 'storage', 'share', 'session', { idempotent: true }),
  r('GET', '/api/storage/shared/:token', 'storage', 'shared', 'none'),
  r('POST', '/api/storage/shared/:token/download', 'storage', 'shared-download', 'none', { profile: 'crypto', timeout: 29 }),
  r('POST', '/api/storage/verify', 'storage', 'verify', 'session', { profile: 'crypto' }),
  // wallets
  r('POST', '/api/wallets', 'wallets', 'create', 'session', { idempotent: true }),
  r('POST', '/api/wallets/import', 'wallets', 'import', 'session', { idempotent: true }),
  r('GET', '/api/wallets', 'wallets', 'list', 'session'),
  r('GET', '/api/wallets/:id', 'wallets', 'get', 'session'),
  r('PATCH', '/api/wallets/:id', 'wallets', 'update', 'session'),
  r('DELETE', '/api/wallets/:id', 'wallets', 'delete', 'session'),
  r('GET', '/api/wallets/:id/balance', 'wallets', 'balance', 'session'),
  r('POST', '/api/wallets/:id/airdrop', 'wallets', 'airdrop', 'session', { timeout: 29, idempotent: true }),
  // compression: the signing routes wait for a confirmation (up to 25 s on a real cluster)
  r('POST', '/api/compression/compress-native', 'compression', 'compress-native', 'session', { timeout: 29, idempotent: true }),
  r('POST', '/api/compression/decompress-native', 'compression', 'decompress-native', 'session', { timeout: 29, idempotent: true }),
  r('POST', '/api/compression/compress-token', 'compression', 'compress-token', 'session', { timeout: 29, idempotent: true }),
  r('POST', '/api/compression/decompress-token', 'compression', 'decompress-token', 'session', { timeout: 29, idempotent: true }),
  r('GET', '/api/compression/compressed-balance/:walletId', 'compression', 'compressed-balance', 'session'),
  r('GET', '/api/compression/compressed-token-balance/:walletId/:mint', 'compression', 'compressed-token-balance', 'session'),
  r('POST', '/api/compression/transfer', 'compression', 'transfer', 'session', { timeout: 29, idempotent: true }),
  r('POST', '/api/compression/create-token', 'compression', 'create-token', 'session', { timeout: 29, idempotent: true }),
  r('POST', '/api/compression/mint-to', 'compression', 'mint-to', 'session', { timeout: 29, idempotent: true }),
  // storage: replicated pinning
  r('POST', '/api/storage/replica/pin', 'storage', 'replica-pin', 'session', { idempotent: true }),
  r('GET', '/api/storage/replica/status/:cid', 'storage', 'replica-status', 'session', { timeout: 29 }),
  r('GET', '/api/storage/ipfs/:cid', 'storage', 'ipfs', 'none', { timeout: 29 }),
  // attest: privacy attestations (lib/attest)
  r('GET', '/api/attest/schemas', 'attest', 'schemas', 'none', { profile: 'crypto' }),
  r('GET', '/api/attest/issuer', 'attest', 'issuer', 'none', { profile: 'crypto' }),
  r('GET', '/api/attest/revocations', 'attest', 'revocations', 'none'),
  r('POST', '/api/attest/verify', 'attest', 'verify', 'none', { profile: 'crypto' }),
  r('POST', '/api/attest', 'attest', 'issue', 'session', { profile: 'crypto', timeout: 29, idempotent: true, streamRequest: true }),
  r('GET', '/api/attest', 'attest', 'list', 'session'),
  r('POST', '/api/attest/groups', 'attest', 'group-create', 'session', { idempotent: true }),
  r('GET', '/api/attest/groups/:id', 'attest', 'group-get', 'none'),
  r('GET', '/api/attest/groups/:id/members', 'attest', 'group-members', 'none'),
  r('POST', '/api/attest/groups/:id/members', 'attest', 'group-add-member', 'session', { idempotent: true }),
  r('GET', '/api/attest/:id', 'attest', 'get', 'session'),
  r('POST', '/api/attest/:id/revoke', 'attest', 'revoke', 'optional', { profile: 'crypto' }),
  // proofs: the caller's proof history (lib/proofs)
  r('GET', '/api/proofs', 'proofs', 'list', 'session'),
  r('GET', '/api/proofs/export', 'proofs', 'export', 'session'),
  r('GET', '/api/proofs/stats', 'proofs', 'stats', 'session'),
  r('GET', '/api/proofs/:id', 'proofs', 'get', 'session'),
  r('POST', '/api/proofs/:id/verify', 'proofs', 'verify', 'session', { profile: 'crypto' }),
  r('DELETE', '/api/proofs/:id', 'proofs', 'delete', 'session'),
  // chainb: chain B wallets, transfers, balances, transactions (a transfer waits for its receipts on a real node)
  r('GET', '/api/chainb/wallets', 'chainb', 'wallets', 'session'),
  r('POST', '/api/chainb/transfer', 'chainb', 'transfer', 'session', { timeout: 29, idempotent: true }),
  r('GET', '/api/chainb/balance/:address', 'chainb', 'balance', 'session'),
  r('GET', '/api/chainb/tx/:hash', 'chainb', 'tx', 'session'),
  // bridge: initiate may send the chain A source transaction (waits for its confirmation)
  r('POST', '/api/bridge/initiate', 'bridge', 'initiate', 'session', { timeout: 29, idempotent: true }),
  r('GET', '/api/bridge/status/:id', 'bridge', 'status', 'session'),
  r('GET', '/api/bridge/history', 'bridge', 'history', 'session'),
  r('POST', '/api/bridge/:id/source-tx', 'bridge', 'source-tx', 'session'),
  r('POST', '/api/bridge/:id/cancel', 'bridge', 'cancel', 'session'),
  // transfer: shielded pools; withdrawals have no session (tied to no account), limited per source IP.
  // The first request of a deployment creates the pools (chain transactions): 29 s on every route that may.
  r('GET', '/api/transfer/pools', 'transfer', 'pools', 'none', { timeout: 29 }),
  r('GET', '/api/transfer/pools/:id', 'transfer', 'pool', 'none', { timeout: 29 }),
  r('GET', '/api/transfer/pools/:id/leaves', 'transfer', 'leaves', 'none', { timeout: 29 }),
  r('POST', '/api/transfer/deposit', 'transfer', 'deposit', 'session', { timeout: 29, idempotent: true }),
  r('GET', '/api/transfer/deposits', 'transfer', 'deposits', 'session'),
  r('POST', '/api/transfer/withdraw', 'transfer', 'withdraw', 'none', { profile: 'crypto', timeout: 29 }),
  r('GET', '/api/transfer/jobs/:id', 'transfer', 'job', 'none'),
  r('GET', '/api/transfer/nullifiers/:hash', 'transfer', 'nullifier', 'none'),
  r('POST', '/api/transfer/test-tokens', 'transfer', 'test-tokens', 'session', { timeout: 29, idempotent: true }),
  // swap: quote, then execute the quote once (the first quote or pairs call may seed the local pool)
  r('GET', '/api/swap/pairs', 'swap', 'pairs', 'session', { timeout: 29 }),
  r('POST', '/api/swap/quote', 'swap', 'quote', 'session', { timeout: 29 }),
  r('POST', '/api/swap/execute', 'swap', 'execute', 'session', { timeout: 29, idempotent: true }),
  r('GET', '/api/swap/orders', 'swap', 'orders', 'session'),
  r('GET', '/api/swap/orders/:id', 'swap', 'order', 'session'),
  r('GET', '/api/swap/addresses', 'swap', 'addresses', 'session'),
  r('POST', '/api/swap/addresses/:address/sweep', 'swap', 'sweep', 'session', { timeout: 29, idempotent: true }),
  // rewards
  r('GET', '/api/rewards/program', 'rewards', 'program', 'none'),
  r('GET', '/api/rewards/me', 'rewards', 'me', 'session'),
  r('GET', '/api/rewards/ledger', 'rewards', 'ledger', 'session'),
  r('GET', '/api/rewards/leaderboard', 'rewards', 'leaderboard', 'none'),
  r('POST', '/api/rewards/claim', 'rewards', 'claim', 'session', { timeout: 29, idempotent: true }),
  // ai: chat streams (server-sent events) from a function URL on AWS, and through the emulator locally
  r('POST', '/api/ai/chat', 'ai', 'chat', 'session', { timeout: 29, stream: true }),
  r('GET', '/api/ai/conversations', 'ai', 'conversations', 'session'),
  r('GET', '/api/ai/conversations/:id', 'ai', 'conversation', 'session'),
  r('DELETE', '/api/ai/conversations/:id', 'ai', 'delete-conversation', 'session'),
  r('POST', '/api/ai/feedback', 'ai', 'feedback', 'session'),
  r('GET', '/api/ai/status', 'ai', 'status', 'session'),
  // docs: the OpenAPI document and the reference page (public)
  r('GET', '/api/openapi.json', 'docs', 'openapi-json', 'none'),
  r('GET', '/api/docs', 'docs', 'page', 'none'),
  r('GET', '/api/docs/:asset', 'docs', 'asset', 'none'),
  // web: the terminal in the browser (public; docs group)
  r('GET', '/', 'docs', 'web-page', 'none'),
  r('GET', '/web/:asset', 'docs', 'web-asset', 'none'),
  r('GET', '/share/:token', 'docs', 'share-page', 'none'),
  r('GET', '/favicon.ico', 'docs', 'favicon', 'none'),
  // zkauth: the loopback login's code exchange (native apps, RFC 8252)
  r('POST', '/api/zkauth/exchange', 'zkauth', 'exchange', 'optional'),
  // storage: the owner's share links
  r('GET', '/api/storage/shares', 'storage', 'shares', 'session'),
  r('DELETE', '/api/storage/shares/:id', 'storage', 'shares-revoke', 'session'),
];

/** The row a handler module belongs to. */
export function routeOf(method: Method, path: string): Route {
  const row = routes.find((x) => x.method === method && x.path === path);
  if (!row) throw new Error(`no route ${method} ${path} in functions/routes.ts`);
  return row;
}

/** The rows as `npm run -s routes` prints them. */
export const routeTable = () =>
  routes.map((x) => ({
    method: x.method,
    path: x.path,
    group: x.group,
    handler: x.handler,
    auth: x.auth,
    rateLimit: groups[x.group].rateLimit,
  }));
