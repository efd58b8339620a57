/**
 * The golden set: questions a terminal user asks, with the documentation each answer must cite
 * (README anchors, or `route:<METHOD> <path>` for the route table) and the command it must
 * suggest (a route the command calls), or `null` when no command fits.
 */
export interface Golden {
  q: string;
  cite: string[];
  suggest: string | null;
  /** Strings the suggested command must contain (the user's values). */
  values?: string[];
  /** A fact the answer's text must state. */
  text?: string;
}

export const golden: Golden[] = [
  { q: 'how do I compress 1 SOL?', cite: ['compression-apicompression'], suggest: '/api/compression/compress-native', values: ['"amount":1'] },
  { q: 'compress 0.25 SOL from my main wallet', cite: ['compression-apicompression'], suggest: '/api/compression/compress-native', values: ['"amount":0.25', 'w-main'] },
  { q: 'decompress 3 SOL back to my normal balance', cite: ['compression-apicompression'], suggest: '/api/compression/decompress-native', values: ['"amount":3'] },
  { q: 'how do I register an account as alice_01?', cite: ['identity-and-sessions-apiauth'], suggest: '/api/auth/register', values: ['"username":"alice_01"'] },
  { q: 'how do I log in?', cite: ['identity-and-sessions-apiauth'], suggest: '/api/auth/login' },
  { q: 'log in with github', cite: ['social-login-apizkauth'], suggest: '/api/zkauth/login?provider=github' },
  { q: 'how do I log out', cite: ['identity-and-sessions-apiauth'], suggest: '/api/auth/logout' },
  { q: 'why did my upload fail?', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/files' },
  { q: 'how do I upload a file?', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/upload' },
  { q: 'share my file for 48 hours', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/share', values: ['"expiresIn":48', 'f-newest'] },
  { q: 'share holiday.jpg.enc for 2 days', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/share', values: ['"expiresIn":48', 'f-holiday'] },
  { q: 'how do I download my file?', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/download' },
  { q: 'list my files', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/files' },
  { q: 'delete the file holiday.jpg.enc', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/files/f-holiday' },
  { q: 'create a wallet named trading', cite: ['wallets-apiwallets'], suggest: '/api/wallets', values: ['"name":"trading"', '"chain":"a"'] },
  { q: 'create a chain B wallet called stark1', cite: ['wallets-apiwallets'], suggest: '/api/wallets', values: ['"chain":"b"', '"name":"stark1"', '"password"'] },
  { q: 'import my solana key as a wallet', cite: ['wallets-apiwallets'], suggest: '/api/wallets/import' },
  { q: 'airdrop 5 SOL to my wallet', cite: ['wallets-apiwallets'], suggest: '/api/wallets/w-main/airdrop', values: ['"amount":5'] },
  { q: "what's the balance of my main wallet?", cite: ['wallets-apiwallets'], suggest: '/api/wallets/w-main/balance' },
  { q: 'show my compressed balance', cite: ['wallets-apiwallets', 'compression-apicompression'], suggest: '/api/compression/compressed-balance/w-main' },
  { q: 'transfer 10 tokens to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', cite: ['compression-apicompression'], suggest: '/api/compression/transfer', values: ['"amount":10', '"to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"'] },
  { q: 'create a new token with 6 decimals', cite: ['compression-apicompression'], suggest: '/api/compression/create-token', values: ['"decimals":6'] },
  { q: 'which of my files are shared?', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/shares', text: 'holiday.jpg.enc' },
  { q: 'what is my bridge transfer doing?', cite: ['bridge-apibridge'], suggest: '/api/bridge/status/0b7c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f', text: 'is submitted' },
  { q: 'bridge 2 SOL to chain B', cite: ['bridge-apibridge', 'the-route-groups'], suggest: '/api/bridge/initiate', values: ['"amount":"2"', '"token":"SOL"'] },
  { q: 'submit an identity proof to chain B', cite: ['chain-b-identity-proofs-apichainb'], suggest: '/api/chainb/submit-proof' },
  { q: 'how do I get a STARK proof for my session?', cite: ['social-login-apizkauth', 'stark-proofs-social-login'], suggest: '/api/zkauth/prove' },
  { q: 'compute the poseidon hash of 1 and 2', cite: ['zk-toolkit-apizk-toolkit'], suggest: '/api/zk-toolkit/hash/poseidon', values: ['"inputs":["1","2"]'] },
  { q: 'mimc hash of 12 with key 45', cite: ['zk-toolkit-apizk-toolkit'], suggest: '/api/zk-toolkit/hash/mimc', values: ['"input":"12"', '"key":"45"'] },
  { q: 'pedersen hash of "Hello"', cite: ['zk-toolkit-apizk-toolkit'], suggest: '/api/zk-toolkit/hash/pedersen', values: ['"input":"Hello"'] },
  { q: 'split secret 123 into 5 shares with threshold 3 using shamir', cite: ['zk-toolkit-apizk-toolkit'], suggest: '/api/zk-toolkit/shamir/split', values: ['"secret":"123"', '"threshold":3', '"shares":5'] },
  { q: 'multiply 7 and 9 in the field', cite: ['zk-toolkit-apizk-toolkit'], suggest: '/api/zk-toolkit/field/mul', values: ['"a":"7"', '"b":"9"'] },
  { q: 'I forgot my file password, can you recover it?', cite: ['encrypted-storage-apistorage'], suggest: null },
  { q: 'how are wallet keys protected?', cite: ['key-custody', 'what-is-protected-how'], suggest: null },
  { q: 'what happens when a share link expires?', cite: ['encrypted-storage-apistorage'], suggest: '/api/storage/share' },
  { q: 'how do I deploy my own stage?', cite: ['deploy', 'commands'], suggest: null },
  { q: 'how many login attempts before my account is locked?', cite: ['identity-and-sessions-apiauth', 'what-is-protected-how'], suggest: null },
  { q: 'how do I report a bug?', cite: ['the-route-groups'], suggest: '/api/bug-reports' },
  { q: 'am I logged in?', cite: ['identity-and-sessions-apiauth'], suggest: '/api/auth/session' },
  { q: 'which proofs have I made? show my proof history', cite: ['chain-b-identity-proofs-apichainb'], suggest: null },
  { q: 'how do I run the tests?', cite: ['commands'], suggest: null },
  { q: 'what is the rate limit for storage?', cite: ['how-it-is-built'], suggest: null, text: '30 requests per minute' },
  { q: 'I keep getting 429 too many requests from the toolkit', cite: ['how-it-is-built'], suggest: null, text: 'zk-toolkit 200' },
  { q: 'what is the maximum file size?', cite: ['encrypted-storage-apistorage'], suggest: null, text: '100 MB' },
];
