// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

interface IStarknetMessaging {
    function sendMessageToL2(uint256 toAddress, uint256 selector, uint256[] calldata payload) external payable returns (bytes32, uint256);
}

interface IERC20 {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function balanceOf(address account) external view returns (uint256);
}

/**
 * The deposit side of a StarkGate v2 L1 bridge (starknet-io/starkgate-contracts
 * `StarknetTokenBridge.sol` and `LegacyBridge.sol`): `deposit(token, amount, l2Recipient)` and the
 * legacy `deposit(amount, l2Recipient)` send `handle_token_deposit(token, sender, l2Recipient,
 * amount_low, amount_high)` to the L2 bridge through the core contract and emit `Deposit` (the
 * legacy form also `LogDeposit`), with the real events' signatures. Configuration is immutable (it
 * lives in the code, so the code can be placed at the mainnet bridge address as it is). Withdrawals,
 * governance and token enrollment are not part of the local L1.
 */
abstract contract StarkgateBridge {
    event Deposit(
        address indexed sender,
        address indexed token,
        uint256 amount,
        uint256 indexed l2Recipient,
        uint256 nonce,
        uint256 fee
    );
    event LogDeposit(address indexed sender, uint256 amount, uint256 indexed l2Recipient, uint256 nonce, uint256 fee);

    /** The Starknet selector of `handle_token_deposit`. */
    uint256 internal constant HANDLE_TOKEN_DEPOSIT_SELECTOR = 0x1b64b1b3b690b43b9b514fb81377518f4039cd3e4f4914d8a6bdf01d679fb19;
    uint256 internal constant FIELD_PRIME = 0x800000000000011000000000000000000000000000000000000000000000001;
    uint256 internal constant UINT256_PART_SIZE_BITS = 128;

    IStarknetMessaging public immutable messagingContract;
    uint256 public immutable l2TokenBridge;
    address public immutable bridgedToken;

    constructor(address messaging, uint256 l2Bridge, address token) {
        messagingContract = IStarknetMessaging(messaging);
        l2TokenBridge = l2Bridge;
        bridgedToken = token;
    }

    /** Takes the amount in; returns the part of msg.value that pays the L1→L2 message. */
    function acceptDeposit(uint256 amount) internal virtual returns (uint256 fee);

    function deposit(address token, uint256 amount, uint256 l2Recipient) external payable {
        require(token == bridgedToken, "TOKEN_NOT_SERVICED");
        sendDeposit(amount, l2Recipient);
    }

    function deposit(uint256 amount, uint256 l2Recipient) external payable {
        (uint256 nonce, uint256 fee) = sendDeposit(amount, l2Recipient);
        emit LogDeposit(msg.sender, amount, l2Recipient, nonce, fee);
    }

    function sendDeposit(uint256 amount, uint256 l2Recipient) internal returns (uint256 nonce, uint256 fee) {
        require(l2Recipient != 0 && l2Recipient < FIELD_PRIME, "L2_ADDRESS_OUT_OF_RANGE");
        require(amount > 0, "ZERO_DEPOSIT");
        fee = acceptDeposit(amount);
        uint256[] memory payload = new uint256[](5);
        payload[0] = uint256(uint160(bridgedToken));
        payload[1] = uint256(uint160(msg.sender));
        payload[2] = l2Recipient;
        payload[3] = amount & ((1 << UINT256_PART_SIZE_BITS) - 1);
        payload[4] = amount >> UINT256_PART_SIZE_BITS;
        (, nonce) = messagingContract.sendMessageToL2{value: fee}(l2TokenBridge, HANDLE_TOKEN_DEPOSIT_SELECTOR, payload);
        emit Deposit(msg.sender, bridgedToken, amount, l2Recipient, nonce, fee);
    }
}

/** StarkGate's ETH bridge: ETH is the token 0x455448 ("ETH"); msg.value carries the amount plus the message fee. */
contract StarkgateEthBridge is StarkgateBridge {
    constructor(address messaging, uint256 l2Bridge) StarkgateBridge(messaging, l2Bridge, address(0x455448)) {}

    function acceptDeposit(uint256 amount) internal view override returns (uint256) {
        require(msg.value >= amount, "INSUFFICIENT_VALUE");
        return msg.value - amount;
    }
}

/** A StarkGate ERC-20 bridge: pulls the amount with transferFrom (approve first); msg.value is the message fee. */
contract StarkgateErc20Bridge is StarkgateBridge {
    constructor(address messaging, uint256 l2Bridge, address token) StarkgateBridge(messaging, l2Bridge, token) {}

    function acceptDeposit(uint256 amount) internal override returns (uint256) {
        IERC20 token = IERC20(bridgedToken);
        uint256 before = token.balanceOf(address(this));
        require(token.transferFrom(msg.sender, address(this), amount), "TRANSFER_FROM_FAILED");
        require(token.balanceOf(address(this)) == before + amount, "INCORRECT_AMOUNT_TRANSFERRED");
        return msg.value;
    }
}
