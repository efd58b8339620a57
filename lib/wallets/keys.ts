import type { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Chain } from '#lib/data/wallets.ts';

/**
 * Key pairs and addresses of the two chains.
 *
 * - Chain A (Solana): an Ed25519 key pair; the secret is the usual 64 bytes (seed ‖ public key);
 *   the address is the public key in base58. Imports take base58 (wallet exports) or the JSON byte
 *   array `solana-keygen` writes.
 * - Chain B (Starknet): a Stark-curve private key; the address is the counterfactual address of
 *   an OpenZeppelin account (Contracts for Cairo v1.0.0, `AccountUpgradeable`), deployed by the
 *   first transaction: salt = public key, constructor calldata = [public key], deployer 0.
 */
export const OZ_ACCOUNT_CLASS_HASH = '0x05b4b537eaa2399e3aa99c4e2e0208ebd6c71bc1467938cd52c798c601e43564';

/**
 * The chains' libraries at first use: @solana/web3.js (with node-fetch's URL tables) and starknet
 * are most of a wallet function's bundle, and most functions that import this module (listings,
 * renames, balances of the other chain) never make or read a key.
 */
const solana = () => import('@solana/web3.js');
const starknet = () => import('starknet');

export interface ChainKey {
  address: string;
  /** The secret as stored (sealed): chain A 64 bytes, chain B 32 bytes big-endian. */
  secret: Uint8Array;
}

export class InvalidSecretKey extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSecretKey';
  }
}

export async function chainBAddress(privateKey: bigint): Promise<string> {
  const { CallData, ec, hash, num } = await starknet();
  const publicKey = ec.starkCurve.getStarkKey(num.toHex(privateKey));
  return num.toHex64(hash.calculateContractAddressFromHash(publicKey, OZ_ACCOUNT_CLASS_HASH, CallData.compile({ publicKey }), 0));
}

const be32 = (x: bigint) => Buffer.from(x.toString(16).padStart(64, '0'), 'hex');

export async function generateKey(chain: Chain): Promise<ChainKey> {
  if (chain === 'a') {
    const kp = (await solana()).Keypair.generate();
    return { address: kp.publicKey.toBase58(), secret: kp.secretKey };
  }
  const { ec, stark } = await starknet();
  // The Stark curve's order: a private key is in [1, n).
  const pk = BigInt(stark.randomAddress()) % ec.starkCurve.CURVE.n || 1n;
  return { address: await chainBAddress(pk), secret: be32(pk) };
}

/** A key given by the user; `InvalidSecretKey` for anything malformed. */
export async function importKey(chain: Chain, secretKey: string): Promise<ChainKey> {
  const s = secretKey.trim();
  if (chain === 'a') {
    let bytes: Uint8Array;
    if (s.startsWith('[')) {
      let arr: unknown;
      try {
        arr = JSON.parse(s);
      } catch {
        throw new InvalidSecretKey('secretKey: not a JSON byte array');
      }
      if (!Array.isArray(arr) || !arr.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) {
        throw new InvalidSecretKey('secretKey: a JSON array of bytes (0-255) is expected');
      }
      bytes = Uint8Array.from(arr as number[]);
    } else {
      try {
        bytes = bs58.decode(s);
      } catch {
        throw new InvalidSecretKey('secretKey: not base58');
      }
    }
    if (bytes.length !== 64) throw new InvalidSecretKey('secretKey: a chain A secret key is 64 bytes');
    let kp: Keypair;
    try {
      kp = (await solana()).Keypair.fromSecretKey(bytes); // checks that the public half matches the seed
    } catch {
      throw new InvalidSecretKey('secretKey: the public half does not match the private seed');
    }
    return { address: kp.publicKey.toBase58(), secret: kp.secretKey };
  }
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(s)) throw new InvalidSecretKey('secretKey: a chain B private key is 0x-hex');
  const pk = BigInt(s);
  if (pk <= 0n || pk >= (await starknet()).ec.starkCurve.CURVE.n) throw new InvalidSecretKey('secretKey: outside the Stark curve order');
  return { address: await chainBAddress(pk), secret: be32(pk) };
}

/** The chain A signer from a stored secret. */
export const chainAKeypair = async (secret: Uint8Array): Promise<Keypair> => (await solana()).Keypair.fromSecretKey(secret);
