/**
 * The golden set: questions a terminal user asks, with the documentation each answer must cite
 * (a page and its anchor, `docs/storage.md#encrypted-storage-apistorage`) and the command it must suggest — the start of a `shroud` line, or the route a
 * curl command calls where the terminal program has no command — or `null` when no command fits.
 */
export interface Golden {
  q: string;
  cite: string[];
  suggest: string | null;
  /** Strings the suggested command must contain (the user's values). */
  values?: string[];
  /** A fact the answer's text must state. */
  text?: string;
  /** Values from the caller's own records (test/unit/ai/golden.test.ts's tools) the answer's text must state. */
  says?: string[];
}

export const golden: Golden[] = [
  { q: 'how do I compress 1 SOL?', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud compress 1 --wallet main' },
  { q: 'compress 0.25 SOL from my main wallet', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud compress 0.25 --wallet main' },
  { q: 'decompress 3 SOL back to my normal balance', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud decompress 3 --wallet main' },
  { q: 'how do I register an account as alice_01?', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: 'shroud register alice_01' },
  { q: 'how do I log in?', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: "shroud login '<username>'" },
  { q: 'log in with github', cite: ['docs/identity.md#social-login-apizkauth'], suggest: 'shroud login --provider github' },
  { q: 'how do I log out', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: 'shroud logout' },
  { q: 'why did my upload fail?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud files' },
  { q: 'how do I upload a file?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: "shroud upload '<file>'" },
  { q: 'share my file for 48 hours', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud share f-newest --expires 48' },
  { q: 'share holiday.jpg.enc for 2 days', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud share f-holiday --expires 48' },
  { q: 'how do I download my file?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud download f-newest' },
  { q: 'list my files', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud files' },
  { q: 'delete the file holiday.jpg.enc', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud rm f-holiday' },
  { q: 'create a wallet named trading', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud wallet create trading --chain a' },
  { q: 'create a chain B wallet called stark1', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud wallet create stark1 --chain b' },
  { q: 'import my solana key as a wallet', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud wallet import imported --chain a' },
  { q: 'airdrop 5 SOL to my wallet', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud airdrop 5 --wallet main' },
  { q: "what's the balance of my main wallet?", cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud balance --wallet main' },
  {
    q: 'show my compressed balance',
    cite: ['docs/wallets.md#wallets-apiwallets', 'docs/wallets.md#compression-apicompression'],
    suggest: 'shroud balance --wallet main',
  },
  {
    q: 'transfer 10 tokens to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    cite: ['docs/wallets.md#compression-apicompression'],
    suggest: "shroud send '<mint>' 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin 10 --wallet main",
  },
  {
    q: 'send 4 tokens of mint 7dHbWXmci3dT8UFYWYZweBLXgycu7Y3iL6trKn1Y7ARj to 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    cite: ['docs/wallets.md#compression-apicompression'],
    suggest: 'shroud send 7dHbWXmci3dT8UFYWYZweBLXgycu7Y3iL6trKn1Y7ARj 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin 4 --wallet main',
  },
  { q: 'create a new token with 6 decimals', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud token create --decimals 6 --wallet main' },
  { q: 'which of my files are shared?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud shares', text: 'holiday.jpg.enc' },
  {
    q: 'revoke the share link of holiday.jpg.enc',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud shares revoke 0mhx0a1b2c3d4e5f6a7b8',
  },
  {
    q: 'what is my bridge transfer doing?',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge status 0b7c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f',
    text: 'is submitted',
  },
  {
    q: 'bridge 2 SOL to chain B',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge chaina-chainb 2 SOL --to 0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7 --wallet main',
  },
  {
    q: 'how do I bridge 0.5 ETH from Ethereum to chain B?',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge ethereum-chainb 0.5 ETH --to 0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7',
  },
  { q: 'submit an identity proof to chain B', cite: ['docs/identity.md#chain-b-identity-proofs-apichainb'], suggest: 'shroud chainb prove' },
  {
    q: 'how do I get a STARK proof for my session?',
    cite: ['docs/identity.md#social-login-apizkauth', 'docs/stark.md#stark-proofs-social-login'],
    suggest: 'shroud proofs prove',
  },
  { q: 'compute the poseidon hash of 1 and 2', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit hash poseidon 1 2' },
  { q: 'mimc hash of 12 with key 45', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit hash mimc 12 45' },
  { q: 'pedersen hash of "Hello"', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit hash pedersen Hello' },
  {
    q: 'split secret 123 into 5 shares with threshold 3 using shamir',
    cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'],
    suggest: 'shroud toolkit shamir split 123 3 5',
  },
  { q: 'multiply 7 and 9 in the field', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit field mul 7 9' },
  { q: 'what is the inverse of 5 in the field?', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit field inv 5' },
  { q: 'I forgot my file password, can you recover it?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: null },
  { q: 'how are wallet keys protected?', cite: ['docs/wallets.md#key-custody', 'docs/security.md#what-is-protected-how'], suggest: null },
  { q: 'what happens when a share link expires?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud shares' },
  {
    q: 'how do I deploy my own stage?',
    cite: [
      'docs/deploy.md#deploy',
      'docs/deploy.md#rehearsing-a-deploy-here',
      'docs/deploy.md#npm-run-startassets',
      'docs/operations.md#deploy',
      'docs/operations.md#commands',
    ],
    suggest: null,
  },
  {
    q: 'how many login attempts before my account is locked?',
    cite: ['docs/identity.md#identity-and-sessions-apiauth', 'docs/security.md#what-is-protected-how'],
    suggest: null,
  },
  { q: 'swap 2 SOL for sUSD', cite: ['docs/swap.md#swap-apiswap'], suggest: 'shroud swap quote SOL sUSD 2 --wallet main' },
  {
    q: 'how do I make a shielded deposit?',
    cite: ['docs/transfer.md#shielded-transfers-apitransfer'],
    suggest: "shroud shielded deposit '<pool>' --wallet main",
  },
  {
    q: 'withdraw my shielded note to another address',
    cite: ['docs/transfer.md#shielded-transfers-apitransfer'],
    suggest: "shroud shielded withdraw '<recipient address>'",
  },
  { q: 'how many reward points do I have?', cite: ['docs/rewards.md#rewards-apirewards'], suggest: 'shroud rewards' },
  { q: 'show me my points and the leaderboard', cite: ['docs/rewards.md#rewards-apirewards'], suggest: 'shroud rewards' },
  { q: 'how do I report a bug?', cite: ['docs/architecture.md#the-route-groups'], suggest: "shroud bug '<title>' '<what happened>' --severity medium" },
  { q: 'am I logged in?', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: 'shroud whoami' },
  { q: 'which proofs have I made? show my proof history', cite: ['docs/identity.md#chain-b-identity-proofs-apichainb'], suggest: null },
  { q: 'how do I run the tests?', cite: ['docs/operations.md#commands'], suggest: null },
  { q: 'what is the rate limit for storage?', cite: ['docs/architecture.md#what-every-route-shares'], suggest: null, text: '30 requests per minute' },
  { q: 'I keep getting 429 too many requests from the toolkit', cite: ['docs/architecture.md#what-every-route-shares'], suggest: null, text: 'zk-toolkit 200' },
  { q: 'what is the maximum file size?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: null, text: '100 MB' },
  { q: 'register as a new user', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: "shroud register '<username>'" },
  {
    q: 'airdrop 2 STRK to my chain B wallet',
    cite: ['docs/wallets.md#wallets-apiwallets', 'docs/wallets.md#chain-b-wallets-transfers-balances-apichainb'],
    suggest: 'shroud airdrop 2 --wallet bmain',
  },
  // The caller's own state, answered with the values the read-only tools give.
  {
    q: 'what is my balance?',
    cite: ['docs/wallets.md#wallets-apiwallets'],
    suggest: 'shroud balance',
    says: ['Your wallet "main" holds 2.5 SOL; 0.5 SOL compressed.', 'Your chain B wallet "bmain" holds 12.5 STRK.'],
  },
  { q: 'how much SOL do I have?', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud balance', says: ['2.5 SOL'] },
  {
    q: 'what is the balance of bmain?',
    cite: ['docs/wallets.md#wallets-apiwallets'],
    suggest: 'shroud balance --wallet bmain',
    says: ['Your chain B wallet "bmain" holds 12.5 STRK.'],
  },
  {
    q: 'how much is compressed in my main wallet?',
    cite: ['docs/wallets.md#wallets-apiwallets', 'docs/wallets.md#compression-apicompression'],
    suggest: 'shroud balance --wallet main',
    says: ['0.5 SOL compressed'],
  },
  {
    q: 'show the balances of all my wallets',
    cite: ['docs/wallets.md#wallets-apiwallets'],
    suggest: 'shroud balance',
    says: ['"main" holds 2.5 SOL', '"bmain" holds 12.5 STRK'],
  },
  {
    q: 'what wallets do I have?',
    cite: ['docs/wallets.md#wallets-apiwallets'],
    suggest: 'shroud wallets',
    says: ['You have 2 wallets', '"main" on chain A (active)', '"bmain" on chain B'],
  },
  { q: 'list my wallets', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud wallets', says: ['9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'] },
  {
    q: 'how many files do I have?',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud files',
    says: ['You have 2 files', '"notes.txt.enc" (10 B, 2026-11-23)'],
  },
  {
    q: 'what files have I uploaded?',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud files',
    says: ['"holiday.jpg.enc" (20 B, 2026-11-22)'],
  },
  {
    q: 'show my bridge transfers',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge history',
    says: ['You have 1 bridge transfer', '2 SOL submitted'],
  },
  {
    q: 'what is my bridge history?',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge history',
    says: ['2 SOL submitted (started 2026-11-23 10:00)'],
  },
  {
    q: 'did my bridge transfer arrive?',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge status 0b7c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f',
    says: ['is submitted', 'source transaction 5srcTx'],
  },
  {
    q: 'which share links do I have?',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud shares',
    says: ['You have 1 share link, 1 active', '"holiday.jpg.enc": expires 2026-11-24T09:00:00Z'],
  },
  {
    q: 'when does my share link of holiday.jpg.enc expire?',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud shares',
    says: ['expires 2026-11-24T09:00:00Z'],
  },
  {
    q: 'how many times was my shared link opened?',
    cite: ['docs/storage.md#encrypted-storage-apistorage'],
    suggest: 'shroud shares',
    says: ['opened 2 times'],
  },
  {
    q: 'show my proofs',
    cite: ['docs/identity.md#chain-b-identity-proofs-apichainb'],
    suggest: null,
    says: ['You have 1 recorded proof', 'the latest is a stark proof from 2026-11-23T08:00:00Z'],
  },
  // Tasks, with the user's values in the command.
  { q: 'compress 2 SOL', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud compress 2 --wallet main' },
  { q: 'decompress 0.5 SOL', cite: ['docs/wallets.md#compression-apicompression'], suggest: 'shroud decompress 0.5 --wallet main' },
  { q: 'airdrop 1 SOL', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud airdrop 1 --wallet main' },
  { q: 'share notes.txt.enc for 3 days', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud share f-newest --expires 72' },
  { q: 'download holiday.jpg.enc', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud download f-holiday' },
  { q: 'delete notes.txt.enc', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud rm f-newest' },
  { q: 'add 3 and 4 in the field', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit field add 3 4' },
  { q: 'poseidon hash of 5', cite: ['docs/zk.md#zk-toolkit-apizk-toolkit'], suggest: 'shroud toolkit hash poseidon 5' },
  { q: 'create a wallet called savings', cite: ['docs/wallets.md#wallets-apiwallets'], suggest: 'shroud wallet create savings --chain a' },
  { q: 'log in with google', cite: ['docs/identity.md#social-login-apizkauth'], suggest: 'shroud login --provider google' },
  { q: 'who am I signed in as?', cite: ['docs/identity.md#identity-and-sessions-apiauth'], suggest: 'shroud whoami' },
  { q: 'revoke my share link', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud shares revoke 0mhx0a1b2c3d4e5f6a7b8' },
  {
    q: 'bridge 1.5 SOL to chain B',
    cite: ['docs/bridge.md#bridge-apibridge'],
    suggest: 'shroud bridge chaina-chainb 1.5 SOL --to 0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7 --wallet main',
  },
  // Explanations from the documentation: whole sentences.
  {
    q: 'what is the rate limit of the wallets group?',
    cite: ['docs/architecture.md#what-every-route-shares'],
    suggest: null,
    says: ['The wallets group allows'],
  },
  {
    q: 'what if I forget my account password?',
    cite: ['docs/identity.md#identity-and-sessions-apiauth', 'docs/security.md#what-is-protected-how', 'docs/storage.md#encrypted-storage-apistorage'],
    suggest: null,
  },
  { q: 'how long can a share link live?', cite: ['docs/storage.md#encrypted-storage-apistorage'], suggest: 'shroud share f-newest', says: ['30 days'] },
];
