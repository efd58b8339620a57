import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ec, hash } from 'starknet';
import { toHex, toHex64 } from './felts.ts';

/**
 * The server account's Stark key and the addresses it gives on the embedded chain B, where no
 * class is declared (lib/local/chain-b/registry.ts uses them). Read here, apart from the
 * emulator, because the registry's addresses are known before the emulator loads (index.ts).
 *
 * Class hashes of the emulated contracts (there is no declared class locally; these name them). */
export const LOCAL_ACCOUNT_CLASS_HASH = toHex(hash.starknetKeccak('shroud-local-account'));
export const LOCAL_REGISTRY_CLASS_HASH = toHex(hash.starknetKeccak('shroud-proof-registry'));

export interface LocalKeys {
  privateKey: string;
  accountAddress: string;
  registryAddress: string;
}

/** The account address a deploy_account of the local account class with this key would get. */
export function localAccountAddress(privateKey: string): string {
  const pub = ec.starkCurve.getStarkKey(privateKey);
  return toHex64(hash.calculateContractAddressFromHash(pub, LOCAL_ACCOUNT_CLASS_HASH, [pub], 0));
}

/** The registry address: deployed by the server account, salt 0, no constructor arguments. */
export const localRegistryAddress = (accountAddress: string): string =>
  toHex64(hash.calculateContractAddressFromHash(0, LOCAL_REGISTRY_CLASS_HASH, [], accountAddress));

export function keysFromPrivateKey(privateKey: string, registryAddress?: string): LocalKeys {
  const accountAddress = localAccountAddress(privateKey);
  return { privateKey, accountAddress, registryAddress: registryAddress ? toHex64(registryAddress) : localRegistryAddress(accountAddress) };
}

/**
 * The server's local Stark key: generated once into `<dataDir>/chainb/account.json` (mode 0600,
 * created exclusively so two processes starting together agree on one key), then reused, so
 * addresses and signatures survive restarts. Never logged, never returned by any route.
 */
export function loadOrCreateLocalKeys(dataDir: string): LocalKeys {
  const dir = join(dataDir, 'chainb');
  const file = join(dir, 'account.json');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const privateKey = toHex64(`0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`);
    writeFileSync(file, JSON.stringify(keysFromPrivateKey(privateKey), null, 2), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const stored = JSON.parse(readFileSync(file, 'utf8')) as LocalKeys;
  return keysFromPrivateKey(stored.privateKey, stored.registryAddress);
}
