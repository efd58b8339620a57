import { addressToBytes32, formatMessage as hlFormatMessage, messageId as hlMessageId, parseWarpRouteMessage } from '@hyperlane-xyz/utils';
import { Keypair } from '@solana/web3.js';
import { constants, hash } from 'starknet';
import { describe, expect, it } from 'vitest';
import { formatMessage, messageId, sealevelBytes32, starknetBytes32, tokenMessage } from '#lib/bridge/hyperlane.ts';
import { bridgeRoutes } from '#lib/bridge/routes.ts';
import { depositL1HandlerTxHash, depositMessageHash, depositPayload, HANDLE_TOKEN_DEPOSIT } from '#lib/bridge/starkgate.ts';

/** Our message ids against the bridges' reference implementations. */
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const { origin, destination } = bridgeRoutes['chaina-chainb'];

describe('Hyperlane message id (against @hyperlane-xyz/utils 44.0.2)', () => {
  it('formats and hashes warp transfers from chain A to chain B exactly as the reference, for every route', () => {
    let nonce = 0;
    for (const [symbol, route] of Object.entries(bridgeRoutes['chaina-chainb'].tokens)) {
      for (const amount of [1n, 1_500_000_000n, (1n << 64n) - 1n]) {
        const recipient = `0x0${(BigInt(symbol.length) * 0x1234567n + amount).toString(16)}`;
        const body = tokenMessage(starknetBytes32(recipient), amount);
        const ours = formatMessage({
          nonce,
          originDomain: origin.domainId,
          sender: sealevelBytes32(route.originRouter),
          destinationDomain: destination.domainId,
          recipient: starknetBytes32(route.destinationRouter),
          body,
        });
        const theirs = hlFormatMessage(
          3,
          nonce,
          origin.domainId,
          addressToBytes32(route.originRouter),
          destination.domainId,
          addressToBytes32(route.destinationRouter),
          hex(body),
        );
        expect(hex(ours), symbol).toBe(theirs);
        expect(messageId(ours), symbol).toBe(hlMessageId(theirs));
        const parsed = parseWarpRouteMessage(hex(body));
        expect(BigInt(parsed.amount.toString())).toBe(amount);
        nonce += 7919;
      }
    }
  });

  it('a Solana key is its own 32 bytes; a Starknet felt is left-padded, as the reference converts them', () => {
    const key = Keypair.generate().publicKey.toBase58();
    expect(hex(sealevelBytes32(key))).toBe(addressToBytes32(key));
    expect(hex(starknetBytes32('0x1e70aedffd376afe33cebdf51ed5365131dccb2a5b2cb36d02b785442912b9b'))).toBe(
      addressToBytes32('0x01e70aedffd376afe33cebdf51ed5365131dccb2a5b2cb36d02b785442912b9b'),
    );
  });

  it('any change of a field changes the id', () => {
    const base = {
      nonce: 5,
      originDomain: origin.domainId,
      sender: new Uint8Array(32).fill(1),
      destinationDomain: destination.domainId,
      recipient: new Uint8Array(32).fill(2),
      body: tokenMessage(new Uint8Array(32).fill(3), 10n),
    };
    const id = messageId(formatMessage(base));
    expect(messageId(formatMessage({ ...base, nonce: 6 }))).not.toBe(id);
    expect(messageId(formatMessage({ ...base, body: tokenMessage(new Uint8Array(32).fill(3), 11n) }))).not.toBe(id);
    expect(() => formatMessage({ ...base, sender: new Uint8Array(31) })).toThrow(RangeError);
  });
});

describe('StarkGate L1→L2 message hash', () => {
  it('reproduces a real StarkGate ETH deposit (the vector of starknet.js getL2MessageHash)', () => {
    // starknet.js's documented example: a deposit of 0.009 ETH through StarkGate (l1 token "ETH" = 0x455448).
    expect(BigInt(HANDLE_TOKEN_DEPOSIT)).toBe(774397379524139446221206168840917193112228400237242521560346153613428128537n);
    const d = {
      l1Bridge: '0x0000000000000000000000008453fc6cd1bcfe8d4dfc069c400b433054d47bdc',
      l2Bridge: `0x${(2158142789748719025684046545159279785659305214176670733242887773692203401023n).toString(16)}`,
      l1Token: '0x455448',
      depositor: `0x${(829565602143178078434185452406102222830667255948n).toString(16)}`,
      l2Recipient: `0x${(3461886633118033953192540141609307739580461579986333346825796013261542798665n).toString(16)}`,
      amount: 9000000000000000n,
      l1Nonce: 8288n,
    };
    expect(depositPayload(d)).toEqual([
      4543560n,
      829565602143178078434185452406102222830667255948n,
      3461886633118033953192540141609307739580461579986333346825796013261542798665n,
      9000000000000000n,
      0n,
    ]);
    expect(depositMessageHash(d)).toBe('0x2e350fa9d830482605cb68be4fdb9f0cb3e1f95a0c51623ac1a5d1bd997c2090');
    // The L1_HANDLER transaction that consumes it on chain B (starknet.js's calculateL2MessageTxHash vector, SN_SEPOLIA).
    expect(depositL1HandlerTxHash(d, constants.StarknetChainId.SN_SEPOLIA)).toBe('0x67d959200d65d4ad293aa4b0da21bb050a1f669bce37d215c6edbf041269c07');
  });

  it('splits amounts above 2^128 into low and high as the L2 bridge reads them', () => {
    const amount = (5n << 128n) + 7n;
    const d = { l1Bridge: '0x1', l2Bridge: '0x2', l1Token: '0x3', depositor: '0x4', l2Recipient: '0x5', amount, l1Nonce: 1n };
    expect(depositPayload(d).slice(3)).toEqual([7n, 5n]);
    expect(depositMessageHash(d)).toBe(hash.getL2MessageHash('0x1', '0x2', HANDLE_TOKEN_DEPOSIT, [3n, 4n, 5n, 7n, 5n], 1n));
  });
});
