import { CallData, ec, ETransactionVersion3, hash, transaction, type Call, type constants, type ResourceBoundsBN } from 'starknet';
import type { StoredInvoke } from './port.ts';
import { toHex64 } from './felts.ts';

/**
 * Chain B accounts: OpenZeppelin's account (Contracts for Cairo v1.0.0, `AccountUpgradeable`),
 * its counterfactual address and its V3 transactions' hashes, computed as starknet.js computes
 * them for `Signer.signTransaction` / `signDeployAccountTransaction` (both data-availability
 * modes L1, no paymaster, no account deployment data).
 */
export const OZ_ACCOUNT_CLASS_HASH = '0x05b4b537eaa2399e3aa99c4e2e0208ebd6c71bc1467938cd52c798c601e43564';

/** The account's address: salt = public key, constructor calldata = [public key], deployer 0. */
export const accountAddress = (publicKey: string): string =>
  toHex64(hash.calculateContractAddressFromHash(publicKey, OZ_ACCOUNT_CLASS_HASH, CallData.compile({ publicKey }), 0));

export const publicKeyOf = (privateKey: string): string => toHex64(ec.starkCurve.getStarkKey(privateKey));

export interface V3Common {
  nonce: bigint;
  resourceBounds: ResourceBoundsBN;
  tip: bigint;
  chainId: constants.StarknetChainId;
}

/**
 * The one INVOKE v3 hash (the embedded ledger's, the local registry's, the tests'): a Cairo 1
 * account's `__execute__` calldata (`getExecuteCalldata`, as `Signer.signTransaction` builds it),
 * both data-availability modes L1, no paymaster, no deployment data; `tip` 0 unless given.
 */
export const invokeHash = (tx: Omit<V3Common, 'tip'> & { tip?: bigint; senderAddress: string; calls: Call[] }): string =>
  toHex64(
    hash.calculateInvokeTransactionHash({
      senderAddress: tx.senderAddress,
      version: ETransactionVersion3.V3,
      compiledCalldata: transaction.getExecuteCalldata(tx.calls, '1'),
      chainId: tx.chainId,
      nonce: tx.nonce,
      accountDeploymentData: [],
      nonceDataAvailabilityMode: 0,
      feeDataAvailabilityMode: 0,
      resourceBounds: tx.resourceBounds,
      tip: tx.tip ?? 0n,
      paymasterData: [],
    }),
  );

/** A signed INVOKE v3 in the JSON-RPC shape a node receives (`starknet_addInvokeTransaction`). */
export interface SignedInvokeV3 {
  sender_address: string;
  calldata: string[];
  version: string;
  nonce: string;
  resource_bounds: Record<'l1_gas' | 'l2_gas' | 'l1_data_gas', { max_amount: string; max_price_per_unit: string }>;
  tip: string;
  paymaster_data: string[];
  account_deployment_data: string[];
  nonce_data_availability_mode: string;
  fee_data_availability_mode: string;
}

const daMode = (mode: string) => (mode === 'L2' ? 1 : 0);
const boundOf = (b: { max_amount: string; max_price_per_unit: string }) => ({
  max_amount: BigInt(b.max_amount),
  max_price_per_unit: BigInt(b.max_price_per_unit),
});

/** The hash a node gives that signed INVOKE (computed from the transaction itself, before it is sent). */
export const signedInvokeHash = (tx: SignedInvokeV3, chainId: constants.StarknetChainId): string =>
  toHex64(
    hash.calculateInvokeTransactionHash({
      senderAddress: tx.sender_address,
      version: tx.version as ETransactionVersion3,
      compiledCalldata: tx.calldata,
      chainId,
      nonce: tx.nonce,
      accountDeploymentData: tx.account_deployment_data,
      nonceDataAvailabilityMode: daMode(tx.nonce_data_availability_mode),
      feeDataAvailabilityMode: daMode(tx.fee_data_availability_mode),
      resourceBounds: {
        l1_gas: boundOf(tx.resource_bounds.l1_gas),
        l2_gas: boundOf(tx.resource_bounds.l2_gas),
        l1_data_gas: boundOf(tx.resource_bounds.l1_data_gas),
      },
      tip: tx.tip,
      paymasterData: tx.paymaster_data,
    }),
  );

export const deployAccountHash = (tx: V3Common & { contractAddress: string; classHash: string; constructorCalldata: string[]; addressSalt: string }): string =>
  toHex64(
    hash.calculateDeployAccountTransactionHash({
      contractAddress: tx.contractAddress,
      classHash: tx.classHash,
      compiledConstructorCalldata: tx.constructorCalldata,
      salt: tx.addressSalt,
      version: ETransactionVersion3.V3,
      chainId: tx.chainId,
      nonce: tx.nonce,
      nonceDataAvailabilityMode: 0,
      feeDataAvailabilityMode: 0,
      resourceBounds: tx.resourceBounds,
      tip: tx.tip,
      paymasterData: [],
    }),
  );

/**
 * What the account's `__validate__` does (`check_ecdsa_signature(hash, public_key, r, s)`): a
 * Stark-curve ECDSA signature [r, s] over the transaction hash, against the stored public key
 * (its x coordinate: either point with that x verifies, as in Cairo).
 */
export function verifyStarkSignature(txHash: string, signature: string[], publicKey: string): boolean {
  if (signature.length !== 2) return false;
  let sig;
  try {
    sig = new ec.starkCurve.Signature(BigInt(signature[0]!), BigInt(signature[1]!));
  } catch {
    return false;
  }
  const x = BigInt(publicKey).toString(16).padStart(64, '0');
  for (const prefix of ['02', '03']) {
    try {
      if (ec.starkCurve.verify(sig, txHash, prefix + x)) return true;
    } catch {
      // not a point on the curve, or a malformed signature
    }
  }
  return false;
}

type Bounds = ResourceBoundsBN;
const hexBound = (b: Bounds['l1_gas']) => ({ max_amount: toHex(b.max_amount), max_price_per_unit: toHex(b.max_price_per_unit) });
const toHex = (x: bigint | number | string) => `0x${BigInt(x).toString(16)}`;

/** An INVOKE as the journal stores it (port.ts `StoredInvoke`): calls with their calldata as felts, bounds and tip as hex. */
export function storedInvoke(calls: Call[], resourceBounds: Bounds, tip: bigint | string, signature: string[]): StoredInvoke {
  return {
    calls: calls.map((c) => ({
      contractAddress: toHex64(c.contractAddress),
      entrypoint: c.entrypoint,
      calldata: CallData.toCalldata(c.calldata ?? []).map(toHex),
    })),
    resourceBounds: { l1_gas: hexBound(resourceBounds.l1_gas), l2_gas: hexBound(resourceBounds.l2_gas), l1_data_gas: hexBound(resourceBounds.l1_data_gas) },
    tip: toHex(tip),
    signature: signature.map(toHex),
  };
}

/** The resource bounds of a stored INVOKE, as signed. */
export const boundsOfStored = (s: StoredInvoke): Bounds => ({
  l1_gas: boundOf(s.resourceBounds.l1_gas),
  l2_gas: boundOf(s.resourceBounds.l2_gas),
  l1_data_gas: boundOf(s.resourceBounds.l1_data_gas),
});

/** A stored INVOKE in the JSON-RPC shape a node receives, signature included (what `starknet_addInvokeTransaction` takes). */
export const invokeV3Of = (sender: string, nonce: bigint, s: StoredInvoke): SignedInvokeV3 & { type: 'INVOKE'; signature: string[] } => ({
  type: 'INVOKE',
  sender_address: toHex64(sender),
  calldata: transaction.getExecuteCalldata(s.calls, '1').map(toHex),
  version: ETransactionVersion3.V3,
  signature: s.signature,
  nonce: toHex(nonce),
  resource_bounds: s.resourceBounds,
  tip: s.tip,
  paymaster_data: [],
  account_deployment_data: [],
  nonce_data_availability_mode: 'L1',
  fee_data_availability_mode: 'L1',
});
