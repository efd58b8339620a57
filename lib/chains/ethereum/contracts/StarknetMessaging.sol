// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/**
 * The L1→L2 half of the Starknet core contract's messaging (starkware-libs cairo-lang
 * `StarknetMessaging.sol`), which the local L1 runs at the core contract's mainnet address
 * 0xc662c410C0ECf747543f5bA90660f6ABeBD9C8c4: the same event, the same message hash, the same
 * nonce counter and fee bounds. The sequencer side (consuming the message on L2) is played by the
 * service's relayer on the local chain B.
 */
contract StarknetMessaging {
    event LogMessageToL2(
        address indexed fromAddress,
        uint256 indexed toAddress,
        uint256 indexed selector,
        uint256[] payload,
        uint256 nonce,
        uint256 fee
    );

    uint256 public constant MAX_L1_MSG_FEE = 1 ether;

    uint256 private nonce_;
    /** message hash → fee + 1 while the message waits for L2 (as the core contract keeps it). */
    mapping(bytes32 => uint256) public l1ToL2Messages;

    function l1ToL2MessageNonce() external view returns (uint256) {
        return nonce_;
    }

    function getMaxL1MsgFee() external pure returns (uint256) {
        return MAX_L1_MSG_FEE;
    }

    function getL1ToL2MsgHash(
        address sender,
        uint256 toAddress,
        uint256 selector,
        uint256[] calldata payload,
        uint256 nonce
    ) public pure returns (bytes32) {
        return keccak256(abi.encodePacked(uint256(uint160(sender)), toAddress, nonce, selector, payload.length, payload));
    }

    function sendMessageToL2(
        uint256 toAddress,
        uint256 selector,
        uint256[] calldata payload
    ) external payable returns (bytes32, uint256) {
        require(msg.value > 0, "L1_MSG_FEE_MUST_BE_GREATER_THAN_0");
        require(msg.value <= MAX_L1_MSG_FEE, "MAX_L1_MSG_FEE_EXCEEDED");
        uint256 nonce = nonce_;
        nonce_ = nonce + 1;
        emit LogMessageToL2(msg.sender, toAddress, selector, payload, nonce, msg.value);
        bytes32 msgHash = getL1ToL2MsgHash(msg.sender, toAddress, selector, payload, nonce);
        l1ToL2Messages[msgHash] += msg.value + 1;
        return (msgHash, nonce);
    }
}
