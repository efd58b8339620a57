import type { Keypair } from '@solana/web3.js';
import { getServiceKey, putServiceKeyOnce, replaceServiceKey, type ServiceKeyRecord } from '#lib/data/swap-pools.ts';
import { clock } from '#lib/clock.ts';
import { keyVault } from '#lib/wallets/config.ts';
import { openKey, sealKey } from '#lib/wallets/custody.ts';

/**
 * Keys the service itself holds on chain A (the rewards treasury, and the swap pools' authorities:
 * lib/swap already depends on lib/rewards, so the module lives here), kept exactly like wallet
 * keys: AES-256-GCM under a vault-wrapped data key (KMS on AWS), bound to the key's name and
 * address. Set up once: `setup` creates the key and its accounts, and the record is
 * stored with a conditional put, so two instances racing at first use agree on one.
 */
const custodyId = (name: string) => `service:${name}`;

export interface ServiceKey {
  record: ServiceKeyRecord;
  signer(): Promise<Keypair>;
}

const wrap = (record: ServiceKeyRecord): ServiceKey => ({
  record,
  async signer() {
    const secret = await openKey(keyVault(), custodyId(record.name), record.address, record.sealedKey);
    try {
      return (await import('@solana/web3.js')).Keypair.fromSecretKey(Uint8Array.from(secret));
    } finally {
      secret.fill(0);
    }
  },
});

/**
 * The service key `name`: the stored one when `stillThere` says its accounts exist on the chain,
 * else a new one, set up by `setup` (which returns the mints it created) and stored.
 */
export async function serviceKey(
  name: string,
  stillThere: (r: ServiceKeyRecord) => Promise<boolean>,
  setup: (kp: Keypair) => Promise<Record<string, string>>,
): Promise<ServiceKey> {
  const existing = await getServiceKey(name);
  if (existing && (await stillThere(existing))) return wrap(existing);
  const kp = (await import('@solana/web3.js')).Keypair.generate();
  const mints = await setup(kp);
  const record: ServiceKeyRecord = {
    name,
    address: kp.publicKey.toBase58(),
    sealedKey: await sealKey(keyVault(), custodyId(name), kp.publicKey.toBase58(), kp.secretKey),
    mints,
    createdAt: clock.now().toISOString(),
  };
  return wrap(existing ? await replaceServiceKey(existing, record) : await putServiceKeyOnce(record));
}
