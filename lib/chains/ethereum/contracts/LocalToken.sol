// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/**
 * A minimal ERC-20 that stands for the mainnet tokens StarkGate bridges (USDC, USDT, WBTC, DAI,
 * STRK, WETH) on the local L1, at their mainnet addresses: balances, allowances and the
 * OpenZeppelin 4 revert strings; `mint` by the local L1's first account (the faucet). Name,
 * symbol and decimals are immutable so that the code carries them to the mainnet address.
 */
contract LocalToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    bytes32 private immutable name_;
    bytes32 private immutable symbol_;
    uint8 public immutable decimals;
    address public immutable minter;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(bytes32 tokenName, bytes32 tokenSymbol, uint8 tokenDecimals, address tokenMinter) {
        name_ = tokenName;
        symbol_ = tokenSymbol;
        decimals = tokenDecimals;
        minter = tokenMinter;
    }

    function name() external view returns (string memory) {
        return toString(name_);
    }

    function symbol() external view returns (string memory) {
        return toString(symbol_);
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "LocalToken: only the minter");
        require(to != address(0), "ERC20: mint to the zero address");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "ERC20: insufficient allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        move(from, to, amount);
        return true;
    }

    function move(address from, address to, uint256 amount) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        require(balanceOf[from] >= amount, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    function toString(bytes32 b) private pure returns (string memory) {
        uint256 n = 0;
        while (n < 32 && b[n] != 0) n++;
        bytes memory out = new bytes(n);
        for (uint256 i = 0; i < n; i++) out[i] = b[i];
        return string(out);
    }
}
