/**
 * What the API reference says of each route: a summary (a line) and a description (what it does,
 * what it needs, what it answers), keyed `METHOD path` as in functions/routes.ts. The document
 * generator (document.ts) refuses a route without its entry, so a new route comes with its text.
 */
export interface OperationText {
  summary: string;
  description: string;
}

const t = (summary: string, description: string): OperationText => ({ summary, description });

export const OPERATION_TEXT: Record<string, OperationText> = {
  'GET /api/init': t(
    'Describe this deployment',
    "The environment in one answer: the chains and networks in use, the features that are on, the routes, and the caller's session (`authenticated: false` when there is none). Needs no sign-in.",
  ),
  'POST /api/bug-reports': t(
    'Report a bug',
    "Stores a bug report. Signed in, the report is the account's; signed out, it belongs to an anonymous client cookie set on the first report. Idempotent with `Idempotency-Key`.",
  ),
  'GET /api/bug-reports': t('List bug reports', "The bug reports this caller filed: the account's when signed in, else the anonymous client cookie's."),

  'POST /api/auth/register': t(
    'Create an account',
    'Registers a username and password together with the zero-knowledge identity made on the client: the identity public key and its private key encrypted under the password (PBKDF2 salt and iterations, AES-GCM IV). The server never sees the private key. Answers the new user with its `zkId`.',
  ),
  'POST /api/auth/login': t(
    'Sign in with a password',
    'Checks the username and password and sets the session cookie (`shroud_session`, HttpOnly, SameSite=Lax). Repeated failures lock the account for a while.',
  ),
  'POST /api/auth/logout': t('Sign out', 'Ends the session named by the cookie, if any, and clears the cookie. Succeeds signed out too.'),
  'GET /api/auth/session': t(
    'Check the session',
    '`authenticated: true` with the user when the cookie names a live session, else `authenticated: false`. Never 401.',
  ),
  'GET /api/auth/me': t('The signed-in user', 'The user of this session (id, username, zkId); 401 without a session.'),
  'GET /api/auth/identity': t(
    'The encrypted identity key',
    'The identity key as stored: the public key and the private key encrypted under the account password, with the salt, iterations and IV to decrypt it on the client.',
  ),
  'POST /api/auth/upgrade-legacy': t(
    'Re-encrypt a legacy identity key',
    "Replaces an account's identity key blob made with older parameters by one the client re-encrypted with the current key derivation.",
  ),

  'POST /api/chainb/submit-proof': t(
    'Record an identity proof on chain B',
    'Verifies a signature over the zkId, nonce and timestamp with the given public key and records the proof in the chain B registry; answers the transaction hash and the contract.',
  ),
  'GET /api/chainb/proofs/{proofId}': t('Read a recorded proof', 'A proof recorded on chain B by its id: who, when, and the transaction. Public.'),
  'GET /api/chainb/wallets': t('Your chain B wallets', "The caller's chain B (Starknet-type) wallets: id, name, address, whether active."),
  'POST /api/chainb/transfer': t(
    'Send from a chain B wallet',
    "Signs and sends a transfer of STRK, ETH or a token from one of the caller's chain B wallets; the wallet's key is unsealed with its password for this request only. The amount and the fees are checked before anything is signed. Idempotent with `Idempotency-Key`.",
  ),
  'GET /api/chainb/balance/{address}': t(
    'A chain B balance',
    'The balance of any chain B address in STRK (default), ETH or a token, in smallest units and formatted.',
  ),
  'GET /api/chainb/tx/{hash}': t('A chain B transaction', "A chain B transaction's status, block, fee and events."),

  'GET /api/zkauth/providers': t('OAuth providers', 'The OAuth providers this server offers and whether each is configured.'),
  'GET /api/zkauth/login': t(
    'Start an OAuth sign-in',
    "Redirects to the provider's consent page (PKCE and state kept server-side). `redirect` is where the browser returns afterwards; native apps pass a loopback `redirect_uri` and a PKCE challenge.",
  ),
  'GET /api/zkauth/callback/{provider}': t(
    'OAuth callback',
    'Where the provider sends the browser back: exchanges the code, derives the session key, sets the session cookie and redirects to the application (or hands a one-time code to a native app).',
  ),
  'GET /api/zkauth/link': t('Link another provider', 'Redirects to a provider to link it to the signed-in account.'),
  'POST /api/zkauth/unlink': t('Unlink a provider', 'Removes a linked provider from the account; the last way to sign in cannot be removed.'),
  'GET /api/zkauth/status': t(
    'The OAuth session and its proof',
    "The OAuth session's provider, key hash, and its STARK proof's record on chain B; `authenticated: false` without one.",
  ),
  'POST /api/zkauth/prove': t(
    'Prove the session key (STARK)',
    'Makes a STARK proof of the session key, verifies it and records it on chain B; answers the proof, the transaction and its expiry.',
  ),
  'POST /api/zkauth/verify': t('Check the session proof', "Verifies the session's STARK proof again and reads its record on chain B."),
  'POST /api/zkauth/refresh': t('Refresh the session proof', 'A fresh STARK proof with a new expiry, recorded on chain B.'),
  'POST /api/zkauth/logout': t('Sign out of the OAuth session', 'Ends the session and revokes its proof on chain B when there is one.'),
  'POST /api/zkauth/exchange': t(
    "Exchange a native app's sign-in code",
    'A native app (the CLI) trades the one-time code from the loopback redirect and its PKCE verifier for the session. The code works once; a wrong verifier spends it too.',
  ),

  'POST /api/zk-toolkit/hash/poseidon': t('Poseidon hash', 'Poseidon over the BN254 field of one input or up to 16 inputs (decimal strings).'),
  'POST /api/zk-toolkit/hash/mimc': t('MiMC hash', 'MiMC-Sponge of a decimal input with an optional key.'),
  'POST /api/zk-toolkit/hash/pedersen': t('Pedersen hash', "The Baby JubJub Pedersen hash of the input's bytes, as a point and its packed form."),
  'POST /api/zk-toolkit/field/add': t('Add in the field', '`a + b` modulo the BN254 scalar field prime; inputs and result are decimal strings.'),
  'POST /api/zk-toolkit/field/sub': t('Subtract in the field', '`a − b` modulo the BN254 scalar field prime.'),
  'POST /api/zk-toolkit/field/mul': t('Multiply in the field', '`a × b` modulo the BN254 scalar field prime.'),
  'POST /api/zk-toolkit/field/div': t('Divide in the field', '`a × b⁻¹` modulo the prime; `b` must not be 0.'),
  'POST /api/zk-toolkit/field/inv': t('Inverse in the field', 'The multiplicative inverse of `a`; 0 has none.'),
  'POST /api/zk-toolkit/field/pow': t('Power in the field', '`base` to the power `exp` modulo the prime.'),
  'POST /api/zk-toolkit/field/sqrt': t('Square root in the field', 'A square root of `a` when it is a quadratic residue, else an error.'),
  'GET /api/zk-toolkit/field/random': t('A random field element', 'A uniformly random element of the BN254 scalar field.'),
  'GET /api/zk-toolkit/field/prime': t('The field prime', 'The BN254 scalar field prime.'),
  'GET /api/zk-toolkit/ec/base': t("The curve's base point", "Baby JubJub's base point (x, y)."),
  'POST /api/zk-toolkit/ec/mulbase': t('Multiply the base point', '`scalar × G` on Baby JubJub.'),
  'POST /api/zk-toolkit/ec/add': t('Add two points', 'The sum of two Baby JubJub points; points not on the curve are refused.'),
  'POST /api/zk-toolkit/ec/mul': t('Multiply a point', '`scalar × point` on Baby JubJub.'),
  'POST /api/zk-toolkit/ec/isoncurve': t('Is a point on the curve', 'Whether (x, y) lies on Baby JubJub.'),
  'GET /api/zk-toolkit/ec/params': t('Curve parameters', "Baby JubJub's a, d, order, subgroup order and base point."),
  'POST /api/zk-toolkit/shamir/split': t(
    'Split a secret (Shamir)',
    'Splits a secret into `shares` shares of which any `threshold` rebuild it, over the BN254 field.',
  ),
  'POST /api/zk-toolkit/shamir/combine': t('Combine Shamir shares', 'Rebuilds the secret from at least the threshold of shares.'),
  'POST /api/zk-toolkit/proof/generate': t(
    'Make a Groth16 proof',
    'Proves a circuit (default `preimage`) for the named inputs on the server; answers the proof and its public signals. Private inputs reach the server: prove on the client for real secrets.',
  ),
  'POST /api/zk-toolkit/proof/verify': t('Verify a Groth16 proof', "Checks a proof and its public signals against a circuit's verification key."),
  'GET /api/zk-toolkit/proof/circuits': t(
    'The circuits',
    'Each circuit with its inputs and the addresses and SHA-256 of its witness generator, proving key and verification key, for proving on the client.',
  ),
  'GET /api/zk-toolkit/proof/circuits/{name}/{artifact}': t(
    'A circuit artifact',
    "The bytes of a circuit's witness generator (`wasm`), proving key (`zkey`) or verification key (`vkey`), cached by their hash.",
  ),

  'POST /api/storage/upload': t(
    'Upload an encrypted file',
    "Multipart: the ciphertext (encrypted on the client), its IV and salt, the password commitment and a Groth16 proof of the password, and the ciphertext's SHA-256. Stores and pins it; answers its id and CID. Idempotent with `Idempotency-Key`.",
  ),
  'POST /api/storage/upload-url': t(
    'Upload a large file directly',
    'For files over about 4 MB: a presigned URL the client `PUT`s the ciphertext to (written once), then `POST /api/storage/upload` with the `uploadId` and the same proof and checksum parts, without a `file` part. Idempotent with `Idempotency-Key`.',
  ),
  'GET /api/storage/list': t('Your files (variant A)', "The caller's files, newest first, with `success`."),
  'GET /api/storage/files': t('Your files', "The caller's files, newest first, a page at a time (`cursor`)."),
  'GET /api/storage/download/{cid}': t(
    'Download by CID (variant A)',
    "The stored ciphertext of one of the caller's files by CID, with its name in `Content-Disposition`.",
  ),
  'POST /api/storage/download': t(
    'Download a file with a password proof',
    "Checks a Groth16 proof of the file password against the file's commitment, then answers the ciphertext (or a redirect to it for large files) with its SHA-256 in `X-Checksum-SHA256`. A wrong password is 401 `INVALID_PROOF`.",
  ),
  'DELETE /api/storage/{id}': t('Delete a file (variant A)', "Deletes one of the caller's files and unpins it."),
  'DELETE /api/storage/files/{fileId}': t('Delete a file', "Deletes one of the caller's files and unpins it."),
  'POST /api/storage/share': t(
    'Make a share link',
    "A link to one of the caller's files that lives `expiresIn` (hours, or a number with s, m, h or d; 30 days at most). The token is shown once.",
  ),
  'GET /api/storage/shared/{token}': t(
    'Open a share link',
    "What a share link points to: the file's name, size and CID. Expired and revoked links say so. Public: the token is the capability.",
  ),
  'POST /api/storage/shared/{token}/download': t(
    'Download a shared file',
    "The ciphertext behind a share link, for a proof of the file password (the same proof as the owner's download): the recipient decrypts it with that password. Public: the token is the capability; an expired or revoked link is refused.",
  ),
  'POST /api/storage/verify': t('Verify a password proof', 'Checks a Groth16 password proof against a commitment without downloading anything.'),
  'GET /api/storage/shares': t('Your share links', "The caller's share links with their status and how often each was opened; never their tokens."),
  'DELETE /api/storage/shares/{id}': t('Revoke a share link', "Revokes one of the caller's share links: it stops opening at once."),
  'POST /api/storage/replica/pin': t(
    'Replicate a file',
    "Queues copies of one of the caller's files on the configured pinning services; answers 202 with the pin's status.",
  ),
  'GET /api/storage/replica/status/{cid}': t('Replica status', "Where a file's copies are pinned, and with `challenge` a storage proof from the replicas."),
  'GET /api/storage/ipfs/{cid}': t(
    'Trustless gateway',
    "The file's blocks as a CAR (or a redirect to one), for a share link's `token`: verifiable against the CID by the reader.",
  ),

  'POST /api/wallets': t(
    'Create a wallet',
    "A new chain A or chain B wallet; its key is made and sealed on the server (chain B keys also under the wallet's password). Idempotent with `Idempotency-Key`.",
  ),
  'POST /api/wallets/import': t('Import a wallet', "Imports an existing key as a wallet of the caller's, sealed like a new one."),
  'GET /api/wallets': t('Your wallets', "The caller's wallets on both chains (or `chain`), with which one is active per chain."),
  'GET /api/wallets/{id}': t('One wallet', "One of the caller's wallets."),
  'PATCH /api/wallets/{id}': t('Rename or activate a wallet', "Changes a wallet's name or makes it the active one of its chain."),
  'DELETE /api/wallets/{id}': t('Delete a wallet', "Deletes one of the caller's wallets and its sealed key."),
  'GET /api/wallets/{id}/balance': t(
    "A wallet's balance",
    "The balance of one of the caller's wallets, either chain: chain A in the native coin (or a `mint`), chain B in STRK (or a `token`). Smallest units and formatted.",
  ),
  'POST /api/wallets/{id}/airdrop': t(
    'Airdrop test coins',
    'Free coins on localnet and devnet (chain A native coin; chain B STRK or ETH on localnet), at most 100. Idempotent with `Idempotency-Key`.',
  ),

  'POST /api/compression/compress-native': t(
    'Compress native coin',
    "Moves an amount (whole coins) of a chain A wallet's native coin into ZK-compressed state; answers the amount in smallest units with its decimals.",
  ),
  'POST /api/compression/decompress-native': t('Decompress native coin', "Moves compressed native coin back to the wallet's ordinary balance."),
  'POST /api/compression/compress-token': t('Compress a token', 'Compresses an amount of an SPL token the wallet holds.'),
  'POST /api/compression/decompress-token': t('Decompress a token', "Moves compressed tokens back to the wallet's token account."),
  'GET /api/compression/compressed-balance/{walletId}': t('Compressed balance', "A wallet's compressed native balance, in smallest units and formatted."),
  'GET /api/compression/compressed-token-balance/{walletId}/{mint}': t('Compressed token balance', "A wallet's compressed balance of one token."),
  'POST /api/compression/transfer': t(
    'Send compressed tokens',
    'Sends compressed tokens from a chain A wallet to an address; the amount is in whole tokens, the answer in smallest units.',
  ),
  'POST /api/compression/create-token': t('Create a compressed token', 'A new SPL mint with the wallet as its authority, registered for compression.'),
  'POST /api/compression/mint-to': t('Mint compressed tokens', 'Mints compressed tokens of a mint the wallet controls, to the wallet or to `to`.'),

  'GET /api/attest/schemas': t('Attestation schemas', 'What can be attested: each schema with its circuit, claims and whether it needs a group.'),
  'GET /api/attest/issuer': t("The issuer's key", "The attestation issuer's EdDSA public key and what it signs."),
  'GET /api/attest/revocations': t('Revocation list', "The revoked attestations and the list's Merkle root."),
  'POST /api/attest/verify': t('Verify an attestation', "Checks an attestation's signature, fields, revocation and expiry; answers the reasons when invalid."),
  'POST /api/attest': t(
    'Issue an attestation',
    'Verifies a Groth16 proof of a claim made on the client (age over 18, a range, a preimage, group membership) and signs an attestation of it; one per subject and scope (the nullifier). Optionally anchored on chain B.',
  ),
  'GET /api/attest': t('Your attestations', "The caller's attestations, newest first."),
  'POST /api/attest/groups': t('Create a group', 'A group (a Merkle tree of member commitments) that group-member attestations prove membership of.'),
  'GET /api/attest/groups/{id}': t('A group', "A group's name, size and current root. Public."),
  'GET /api/attest/groups/{id}/members': t("A group's members", 'The member commitments of a group, in order, for building membership proofs. Public.'),
  'POST /api/attest/groups/{id}/members': t('Add a group member', 'Adds a member commitment to a group the caller owns.'),
  'GET /api/attest/{id}': t('One attestation', "One of the caller's attestations, with its revocation state."),
  'POST /api/attest/{id}/revoke': t(
    'Revoke an attestation',
    'Revokes an attestation: by its subject when signed in, or by the issuer with `issuerSignature` over the attestation.',
  ),

  'GET /api/proofs': t(
    'Your proof history',
    "The caller's proof records (file passwords, attestations, STARK sessions), newest first, filtered by type and dates.",
  ),
  'GET /api/proofs/export': t(
    'Export your proof history',
    "The caller's proof records as NDJSON, one a line; `X-Export-Truncated: true` when more matched than one export holds.",
  ),
  'GET /api/proofs/stats': t('Proof statistics', "Counts of the caller's proofs by type and outcome."),
  'GET /api/proofs/{id}': t('One proof record', "One of the caller's proof records with its public signals."),
  'POST /api/proofs/{id}/verify': t('Verify a recorded proof again', "Verifies a stored proof again against its circuit's key."),
  'DELETE /api/proofs/{id}': t('Delete a proof record', "Deletes one of the caller's proof records."),

  'POST /api/bridge/initiate': t(
    'Start a bridge transfer',
    'A transfer into chain B (from chain A over Hyperlane, or from Ethereum over StarkGate) or out of it (`direction: withdraw`). With a `walletId` on the chain A route the server sends it now; without, it answers the steps to send it yourself.',
  ),
  'GET /api/bridge/status/{id}': t(
    "A bridge transfer's status",
    "Where one of the caller's transfers is: pending → submitted → source_confirmed → completed (or failed, expired, cancelled).",
  ),
  'GET /api/bridge/history': t('Your bridge transfers', "The caller's bridge transfers, newest first."),
  'POST /api/bridge/{id}/source-tx': t(
    'Attach the source transaction',
    "Step 2 of a transfer you send yourself: the source chain's transaction (chain A signature, Ethereum or chain B hash); the relayer then checks it and delivers.",
  ),
  'POST /api/bridge/{id}/cancel': t('Cancel a pending bridge transfer', 'Cancels a transfer for which nothing was sent yet.'),

  'GET /api/transfer/pools': t('Shielded pools', 'The fixed-denomination shielded pools on chain A with their Merkle roots and sizes. Public.'),
  'GET /api/transfer/pools/{id}': t('One shielded pool', "One pool's token, denomination, address, root and size. Public."),
  'GET /api/transfer/pools/{id}/leaves': t(
    "A pool's commitments",
    'Up to 1,000 commitments of a pool from index `from`, in order, for building a withdrawal proof. Public.',
  ),
  'POST /api/transfer/deposit': t(
    'Deposit into a shielded pool',
    'Sends one denomination from a chain A wallet into a pool with a note commitment made on the client. Idempotent with `Idempotency-Key`.',
  ),
  'GET /api/transfer/deposits': t('Your deposits', "The caller's shielded deposits, newest first."),
  'POST /api/transfer/withdraw': t(
    'Withdraw from a shielded pool',
    'A Groth16 proof of knowing some note in the pool, its nullifier hash and a recipient; the relayer pays out. Needs no session: a withdrawal is tied to no account.',
  ),
  'GET /api/transfer/jobs/{id}': t("A withdrawal's status", 'A withdrawal job: pending or paid, with its transaction once paid.'),
  'GET /api/transfer/nullifiers/{hash}': t('Is a note spent', 'Whether a nullifier hash was spent, and when.'),
  'POST /api/transfer/test-tokens': t('Test tokens for the token pools', 'Test tokens (at most 10,000) to a chain A wallet, on localnet and devnet only.'),

  'GET /api/swap/pairs': t('Swap pairs', 'The pairs the swap adapter offers with their fees and reserves.'),
  'POST /api/swap/quote': t(
    'Quote a swap',
    'A price for swapping an amount of one token for another from a chain A wallet, with slippage, fee and what the chosen output hides. Valid until `expiresAt`.',
  ),
  'POST /api/swap/execute': t('Execute a quote', 'Executes a quote: the swap is signed and sent from the quoted wallet.'),
  'GET /api/swap/orders': t('Your swaps', "The caller's executed and failed swaps, newest first."),
  'GET /api/swap/orders/{id}': t('One swap', "One of the caller's swap orders."),
  'GET /api/swap/addresses': t('Your one-time addresses', "The one-time output addresses of the caller's swaps."),
  'POST /api/swap/addresses/{address}/sweep': t('Sweep a one-time address', "Moves a one-time address's tokens (all, or `amount`) to a chain A address."),

  'GET /api/rewards/program': t('The rewards program', "Epochs, point rules, the reward token and each epoch's Merkle root. Public."),
  'GET /api/rewards/me': t('Your rewards', "The caller's points and rank this epoch, and what ended epochs can be claimed."),
  'GET /api/rewards/ledger': t('Your points ledger', 'Each accrual of points with its source transaction, newest first.'),
  'GET /api/rewards/leaderboard': t('Leaderboard', 'The top 100 of an epoch by pseudonym (never usernames or addresses). Public.'),
  'POST /api/rewards/claim': t("Claim an epoch's reward", "Claims an ended epoch's reward to a chain A wallet with its Merkle proof, once."),

  'POST /api/ai/chat': t(
    'Ask the assistant',
    "A question to the assistant, answered as a stream of server-sent events (`meta`, `delta`, `citation`, `tool`, `suggestion`, `done`). It reads the caller's own state with read-only tools and suggests commands; it never runs them.",
  ),
  'GET /api/ai/conversations': t('Your conversations', "The caller's assistant conversations, newest first."),
  'GET /api/ai/conversations/{id}': t('One conversation', "A conversation's messages with their citations and suggestions."),
  'DELETE /api/ai/conversations/{id}': t('Delete a conversation', "Deletes one of the caller's conversations."),
  'POST /api/ai/feedback': t('Rate an answer', 'Feedback (up or down, with an optional comment) on one assistant message.'),
  'GET /api/ai/status': t("The assistant's backend", 'Which backend answers (the retrieval assistant or a model) and its limits.'),

  'GET /api/openapi.json': t('This document', "The OpenAPI 3.1 document of the API, generated from the route table and the handlers' schemas."),
  'GET /api/docs': t('The API reference page', 'This reference as an HTML page (Swagger UI).'),
  'GET /api/docs/{asset}': t("The reference page's assets", "The reference page's scripts and style sheet."),
  'GET /': t('The browser terminal', 'The web page: the same commands as the `shroud` CLI in a terminal in the browser.'),
  'GET /share/{token}': t(
    'The share page',
    "The page a share link opens: the file's name and size, a field for the file password; it proves and decrypts in the browser and saves the file. An expired or revoked link says so.",
  ),
  'GET /favicon.ico': t('The icon', "The browser terminal's and the share page's icon."),
  'GET /web/{asset}': t("The browser terminal's assets", "The browser terminal's script and style sheets."),
};

/** What each group of routes is, for the document's tags. */
export const GROUP_TEXT: Record<string, string> = {
  init: 'The deployment: chains, features, routes and your session in one answer.',
  'bug-reports': 'Bug reports from users.',
  auth: 'Accounts with a password and a zero-knowledge identity key made and encrypted on the client.',
  chainb: "Chain B (Starknet-type): identity proofs, wallets' transfers, balances and transactions.",
  zkauth: "Sign-in with OAuth providers, and the session key's STARK proof recorded on chain B.",
  'zk-toolkit': 'Cryptographic primitives over BN254 and Baby JubJub: hashes, field and curve arithmetic, Shamir sharing, Groth16 proofs.',
  storage: 'Files encrypted on the client, unlocked with a Groth16 proof of their password; share links, replicas, a trustless gateway.',
  wallets: 'Wallets on chain A and chain B with server-sealed keys: create, import, balances, airdrops.',
  compression: 'ZK compression on chain A: compress, decompress and send native coin and tokens.',
  attest: 'Attestations of claims proved on the client (age, range, preimage, group membership), signed by the issuer.',
  proofs: 'Your proof history: every proof made for your account, exportable.',
  bridge: 'Bridge transfers into and out of chain B: chain A over Hyperlane, Ethereum over StarkGate.',
  transfer: 'Shielded transfers: fixed-denomination pools on chain A, withdrawals proved with Groth16 and paid by a relayer.',
  swap: 'Token swaps on chain A, to your wallet, a one-time address or a shielded pool.',
  rewards: 'Points for using the service, per epoch, claimed on chain A with a Merkle proof.',
  ai: 'The assistant: answers from the docs and your own state, with commands to type.',
  docs: 'This reference, the OpenAPI document, and the web pages.',
};
