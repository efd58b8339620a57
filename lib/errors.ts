/**
 * The one error type of the project. Every error body is `{error: code, message}`; the
 * status follows the table below (`errors`). Anything thrown that is not an AppError becomes a 500
 * `INTERNAL` whose body says nothing about its cause.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: string, status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.headers = headers;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Constructors for the contract's error codes, one place for their statuses. */
export const errors = {
  invalidInput: (message: string) => new AppError('INVALID_INPUT', 400, message),
  usernameExists: (message = 'username already exists') => new AppError('USERNAME_EXISTS', 400, message),
  fieldOverflow: (message: string) => new AppError('FIELD_OVERFLOW', 400, message),
  notOnCurve: (message = 'point is not on the Baby JubJub curve') => new AppError('NOT_ON_CURVE', 400, message),
  invalidShares: (message: string) => new AppError('INVALID_SHARES', 400, message),
  invalidMint: (message: string) => new AppError('INVALID_MINT', 400, message),
  proofFailed: (message: string) => new AppError('PROOF_FAILED', 400, message),
  unauthenticated: (message = 'not authenticated') => new AppError('UNAUTHENTICATED', 401, message),
  invalidCredentials: (message = 'invalid credentials') => new AppError('INVALID_CREDENTIALS', 401, message),
  authFailed: (message = 'OAuth authentication failed') => new AppError('AUTH_FAILED', 401, message),
  sessionExpired: (message = 'session expired') => new AppError('SESSION_EXPIRED', 401, message),
  proofExpired: (message = 'STARK proof expired') => new AppError('PROOF_EXPIRED', 401, message),
  invalidProof: (message = 'ZK proof verification failed') => new AppError('INVALID_PROOF', 401, message),
  forbidden: (message = 'forbidden') => new AppError('FORBIDDEN', 403, message),
  notFound: (message = 'not found') => new AppError('NOT_FOUND', 404, message),
  cidNotFound: (message = 'file not found') => new AppError('CID_NOT_FOUND', 404, message),
  methodNotAllowed: (allow: string[]) =>
    new AppError('METHOD_NOT_ALLOWED', 405, `method not allowed; allowed: ${allow.join(', ')}`, { allow: allow.join(', ') }),
  conflict: (message: string) => new AppError('CONFLICT', 409, message),
  idempotencyInProgress: (retryAfter: number) =>
    new AppError('IDEMPOTENCY_IN_PROGRESS', 409, 'a request with this Idempotency-Key is still running; retry later', { 'retry-after': String(retryAfter) }),
  idempotencyKeyReused: (message = 'this Idempotency-Key was used with another request') => new AppError('IDEMPOTENCY_KEY_REUSED', 422, message),
  proofExists: (message = 'proof already exists') => new AppError('PROOF_EXISTS', 409, message),
  cannotUnlink: (message = 'the last provider cannot be unlinked') => new AppError('CANNOT_UNLINK', 409, message),
  walletLocked: (message = 'wallet lock could not be taken') => new AppError('WALLET_LOCKED', 409, message),
  shareExpired: (message = 'share link expired') => new AppError('SHARE_EXPIRED', 410, message),
  shareRevoked: (message = 'share link revoked by its owner') => new AppError('SHARE_REVOKED', 410, message),
  fileTooLarge: (message = 'file exceeds 100 MB') => new AppError('FILE_TOO_LARGE', 413, message),
  unsupportedMediaType: (message: string) => new AppError('UNSUPPORTED_MEDIA_TYPE', 415, message),
  checksumMismatch: (message = 'integrity check failed') => new AppError('CHECKSUM_MISMATCH', 422, message),
  insufficientBalance: (message = 'insufficient balance') => new AppError('INSUFFICIENT_BALANCE', 422, message),
  rateLimited: (retryAfter: number) =>
    new AppError('RATE_LIMITED', 429, `rate limit exceeded; retry after ${retryAfter} s`, { 'retry-after': String(retryAfter) }),
  internal: () => new AppError('INTERNAL', 500, 'internal error'),
  proofGenerationFailed: (message = 'proof could not be generated') => new AppError('PROOF_GENERATION_FAILED', 500, message),
  identityCreationFailed: (message = 'failed to create the identity') => new AppError('IDENTITY_CREATION_FAILED', 500, message),
  rpcError: (message = 'chain A RPC connection error') => new AppError('RPC_ERROR', 502, message),
  pinningError: (message = 'pinning service error') => new AppError('PINNING_ERROR', 502, message),
  chainBError: (message = 'chain B verification failed') => new AppError('CHAINB_ERROR', 502, message),
  providerUnavailable: (message = 'provider not available') => new AppError('PROVIDER_UNAVAILABLE', 502, message),
  serviceUnavailable: (retryAfter = 2, message = 'a service this request needs is unavailable; retry later') =>
    new AppError('SERVICE_UNAVAILABLE', 503, message, { 'retry-after': String(retryAfter) }),
  indexerSync: (retryAfter: number) => new AppError('INDEXER_SYNC', 503, 'indexer not synced; retry after a delay', { 'retry-after': String(retryAfter) }),
  // wallets and compression
  walletNotFound: (message = 'wallet not found') => new AppError('WALLET_NOT_FOUND', 404, message),
  transactionFailed: (message: string) => new AppError('TRANSACTION_FAILED', 422, message),
  // attest
  schemaMismatch: (message: string) => new AppError('SCHEMA_MISMATCH', 400, message),
  alreadyAttested: (message = 'this subject is already attested in this scope') => new AppError('ALREADY_ATTESTED', 409, message),
  // chain B wallets (invalidAddress and invalidAmount also serve the bridge, transfer and swap)
  invalidPassword: (message = 'wrong wallet password') => new AppError('INVALID_PASSWORD', 401, message),
  tooManyAttempts: (retryAfter: number) =>
    new AppError('TOO_MANY_ATTEMPTS', 429, `too many wrong passwords: this wallet's transfers are locked; retry after ${retryAfter} s`, {
      'retry-after': String(retryAfter),
    }),
  invalidAddress: (message: string) => new AppError('INVALID_ADDRESS', 400, message),
  invalidAmount: (message: string) => new AppError('INVALID_AMOUNT', 400, message),
  insufficientFeeBalance: (message = 'the STRK balance does not cover the fee') => new AppError('INSUFFICIENT_FEE_BALANCE', 422, message),
  nonceConflict: (message = 'another transaction used this account nonce; retry') => new AppError('NONCE_CONFLICT', 409, message),
  transactionReverted: (message: string) => new AppError('TRANSACTION_REVERTED', 422, message),
  txNotFound: (message = 'transaction not found') => new AppError('TX_NOT_FOUND', 404, message),
  // bridge
  unsupportedToken: (message: string) => new AppError('UNSUPPORTED_TOKEN', 400, message),
  unsupportedRoute: (message: string) => new AppError('UNSUPPORTED_ROUTE', 400, message),
  bridgeNotFound: (message = 'bridge transfer not found') => new AppError('BRIDGE_NOT_FOUND', 404, message),
  bridgeStateConflict: (message: string) => new AppError('BRIDGE_STATE_CONFLICT', 409, message),
  // transfer (shielded pools)
  poolNotFound: (message = 'pool not found') => new AppError('POOL_NOT_FOUND', 404, message),
  invalidCommitment: (message: string) => new AppError('INVALID_COMMITMENT', 400, message),
  unknownRoot: (message = "root: not one of the pool's recent roots") => new AppError('UNKNOWN_ROOT', 400, message),
  nullifierSpent: (message = 'this note has already been withdrawn') => new AppError('NULLIFIER_SPENT', 409, message),
  // swap and rewards
  unsupportedPair: (message: string) => new AppError('UNSUPPORTED_PAIR', 400, message),
  quoteNotFound: (message = 'quote not found') => new AppError('QUOTE_NOT_FOUND', 404, message),
  quoteUsed: (message = 'this quote was already executed; a quote executes at most once') => new AppError('QUOTE_USED', 409, message),
  slippageExceeded: (message: string) => new AppError('SLIPPAGE_EXCEEDED', 409, message),
  quoteExpired: (message = 'the quote expired; ask for a new one') => new AppError('QUOTE_EXPIRED', 410, message),
  insufficientLiquidity: (message: string) => new AppError('INSUFFICIENT_LIQUIDITY', 422, message),
  alreadyClaimed: (message = "this epoch's reward was already claimed") => new AppError('ALREADY_CLAIMED', 409, message),
  epochOpen: (message: string) => new AppError('EPOCH_OPEN', 409, message),
  // ai
  aiBudgetSpent: (retryAfter: number) =>
    new AppError('BUDGET_EXCEEDED', 429, `today's assistant token budget is spent; retry after ${retryAfter} s`, { 'retry-after': String(retryAfter) }),
  // zkauth: the loopback login's handoff code (unknown, spent, expired, or not this verifier's)
  invalidHandoff: (message: string) => new AppError('INVALID_HANDOFF', 400, message),
  // swap
  denominationMismatch: (message: string) => new AppError('DENOMINATION_MISMATCH', 400, message),
  nothingToSweep: (message: string) => new AppError('NOTHING_TO_SWEEP', 422, message),
};

const THROTTLED = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'SlowDown',
  'ServiceUnavailable',
  'InternalServerError',
  'InternalError',
  'TransactionConflictException',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether an error means a service we depend on is unreachable, overloaded or failing (not a bug
 * of ours and not the caller's fault): an AWS SDK error with a server fault or throttling, a
 * network error, or a timeout — possibly as the cause of another error. Those answer 503 with
 * Retry-After, never 500.
 */
export function isDependencyFailure(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 3) return false;
  const { name, code, $fault, $metadata, cause } = e as { name?: string; code?: string; $fault?: string; $metadata?: unknown; cause?: unknown };
  if ($metadata && ($fault === 'server' || THROTTLED.has(name ?? ''))) return true;
  if (NETWORK.has(code ?? '') || NETWORK.has(name ?? '')) return true;
  if (name === 'TimeoutError' || name === 'RequestTimeout' || name === 'AbortError') return true;
  return isDependencyFailure(cause, depth + 1);
}
