// An in-memory stand-in for an EVM chain holding one EIP-3009 token (USDC-like),
// exposed through the FacilitatorEvmSigner interface that the reference
// @x402/evm facilitator scheme drives. It answers the reads the facilitator
// makes (balanceOf, name, version, authorizationState, eth_call simulations via
// Multicall3 tryAggregate, getCode) and executes transferWithAuthorization the
// way FiatTokenV2 does: validity window, unused nonce, an EIP-712 signature
// recovered with viem, balance. Every executed transfer is recorded.

import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  isAddressEqual,
  keccak256,
  recoverTypedDataAddress,
  serializeSignature,
  toHex,
  verifyTypedData,
} from "viem";
import { authorizationTypes, eip3009ABI } from "@x402/evm";

// Multicall3 is deployed at the same address on every EVM chain; the reference
// facilitator batches its diagnostic reads through tryAggregate.
const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

// Half the secp256k1 group order: ECRecover in FiatToken rejects a larger s.
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

// Placeholder runtime bytecode: the facilitator only checks that the asset has code.
const TOKEN_CODE = "0x6080604052";

const transferEvent = [
  {
    type: "event",
    name: "Transfer",
    anonymous: false,
    inputs: [
      { name: "from", type: "address", indexed: true },
      { name: "to", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false },
    ],
  },
];

/** A contract revert, worded as FiatTokenV2 words it. */
export class Revert extends Error {}

/** InMemoryChain holds the token state and the list of executed transfers. */
export class InMemoryChain {
  /**
   * @param {object} token - the single token on this chain
   * @param {string} token.address - token contract address
   * @param {string} token.name - EIP-712 domain name (e.g. "USDC")
   * @param {string} token.version - EIP-712 domain version (e.g. "2")
   * @param {number} token.chainId - chain id used in the EIP-712 domain
   * @param {() => number} [now] - clock in unix seconds
   */
  constructor(token, now = () => Math.floor(Date.now() / 1000)) {
    this.token = { ...token, address: getAddress(token.address) };
    this.now = now;
    this.balances = new Map();
    this.usedNonces = new Set();
    this.transfers = [];
    this.receipts = new Map();
    this.txCount = 0;
  }

  /** fund credits an address with atomic units of the token. */
  fund(address, amount) {
    const key = getAddress(address);
    this.balances.set(key, this.balanceOf(key) + BigInt(amount));
  }

  /** balanceOf returns the token balance of an address. */
  balanceOf(address) {
    return this.balances.get(getAddress(address)) ?? 0n;
  }

  isToken(address) {
    return isAddressEqual(getAddress(address), this.token.address);
  }

  /** authorizationState reports whether an EIP-3009 nonce of an authorizer is used. */
  authorizationState(authorizer, nonce) {
    return this.usedNonces.has(`${getAddress(authorizer)}:${nonce.toLowerCase()}`);
  }

  /**
   * checkTransferWithAuthorization performs every check FiatTokenV2 performs
   * before a transferWithAuthorization and throws a Revert on the first
   * failure. It returns the normalised authorization.
   */
  async checkTransferWithAuthorization(args) {
    const [from, to, value, validAfter, validBefore, nonce] = args;
    let signature;
    if (args.length === 9) {
      const [, , , , , , v, r, s] = args;
      const vNum = Number(v);
      if (vNum !== 27 && vNum !== 28) {
        throw new Revert("ECRecover: invalid signature 'v' value");
      }
      if (BigInt(s) > SECP256K1_HALF_N) {
        throw new Revert("ECRecover: invalid signature 's' value");
      }
      signature = serializeSignature({ r, s, v: BigInt(vNum) });
    } else if (args.length === 7) {
      signature = args[6];
    } else {
      throw new Revert("transferWithAuthorization: unexpected arguments");
    }
    const now = BigInt(this.now());
    if (!(now > BigInt(validAfter))) {
      throw new Revert("FiatTokenV2: authorization is not yet valid");
    }
    if (!(now < BigInt(validBefore))) {
      throw new Revert("FiatTokenV2: authorization is expired");
    }
    if (this.authorizationState(from, nonce)) {
      throw new Revert("FiatTokenV2: authorization is used or canceled");
    }
    const message = {
      from: getAddress(from),
      to: getAddress(to),
      value: BigInt(value),
      validAfter: BigInt(validAfter),
      validBefore: BigInt(validBefore),
      nonce,
    };
    let signer;
    try {
      signer = await recoverTypedDataAddress({
        domain: this.domain(),
        types: authorizationTypes,
        primaryType: "TransferWithAuthorization",
        message,
        signature,
      });
    } catch {
      throw new Revert("FiatTokenV2: invalid signature");
    }
    if (!isAddressEqual(signer, message.from)) {
      throw new Revert("FiatTokenV2: invalid signature");
    }
    if (this.balanceOf(message.from) < message.value) {
      throw new Revert("ERC20: transfer amount exceeds balance");
    }
    return message;
  }

  /** domain returns the token's EIP-712 domain. */
  domain() {
    return {
      name: this.token.name,
      version: this.token.version,
      chainId: this.token.chainId,
      verifyingContract: this.token.address,
    };
  }

  /** transferWithAuthorization executes the transfer and returns its transaction hash. */
  async transferWithAuthorization(args, sender) {
    const auth = await this.checkTransferWithAuthorization(args);
    this.usedNonces.add(`${auth.from}:${auth.nonce.toLowerCase()}`);
    this.balances.set(auth.from, this.balanceOf(auth.from) - auth.value);
    this.balances.set(auth.to, this.balanceOf(auth.to) + auth.value);
    this.txCount += 1;
    const hash = keccak256(toHex(`interop-tx-${this.txCount}-${auth.nonce}`));
    this.transfers.push({
      transaction: hash,
      from: auth.from,
      to: auth.to,
      value: auth.value.toString(),
      validAfter: auth.validAfter.toString(),
      validBefore: auth.validBefore.toString(),
      nonce: auth.nonce,
      submittedBy: sender,
    });
    this.receipts.set(hash, {
      status: "success",
      transactionHash: hash,
      logs: [
        {
          address: this.token.address,
          topics: encodeEventTopics({
            abi: transferEvent,
            eventName: "Transfer",
            args: { from: auth.from, to: auth.to },
          }),
          data: encodeAbiParameters([{ type: "uint256" }], [auth.value]),
          transactionHash: hash,
          logIndex: 0,
        },
      ],
    });
    return hash;
  }

  /** call runs a read-only call of the token ABI and returns its decoded result. */
  async call(functionName, args = []) {
    switch (functionName) {
      case "balanceOf":
        return this.balanceOf(args[0]);
      case "name":
        return this.token.name;
      case "version":
        return this.token.version;
      case "authorizationState":
        return this.authorizationState(args[0], args[1]);
      case "transferWithAuthorization":
        // eth_call simulation: all checks, no state change.
        await this.checkTransferWithAuthorization(args);
        return undefined;
      default:
        throw new Revert(`token: function ${functionName} is not implemented`);
    }
  }

  /** callData runs an ABI-encoded token call as Multicall3 would. */
  async callData(data) {
    const { functionName, args } = decodeFunctionData({ abi: eip3009ABI, data });
    const result = await this.call(functionName, args ?? []);
    if (functionName === "transferWithAuthorization") {
      return "0x";
    }
    return encodeFunctionResult({ abi: eip3009ABI, functionName, result });
  }

  /**
   * facilitatorSigner returns a FacilitatorEvmSigner backed by this chain, for
   * the reference ExactEvmScheme facilitator. address is the facilitator's
   * own (gas-paying) account.
   */
  facilitatorSigner(address) {
    const chain = this;
    return {
      getAddresses: () => [address],
      async readContract({ address: target, functionName, args }) {
        if (isAddressEqual(getAddress(target), MULTICALL3_ADDRESS) && functionName === "tryAggregate") {
          const [, calls] = args;
          const results = [];
          for (const { target: callTarget, callData } of calls) {
            if (!chain.isToken(callTarget)) {
              results.push({ success: false, returnData: "0x" });
              continue;
            }
            try {
              results.push({ success: true, returnData: await chain.callData(callData) });
            } catch {
              results.push({ success: false, returnData: "0x" });
            }
          }
          return results;
        }
        if (!chain.isToken(target)) {
          throw new Revert(`no contract at ${target}`);
        }
        return chain.call(functionName, args ?? []);
      },
      async verifyTypedData(params) {
        return verifyTypedData(params);
      },
      async writeContract({ address: target, functionName, args }) {
        if (!chain.isToken(target) || functionName !== "transferWithAuthorization") {
          throw new Revert(`unsupported transaction ${functionName} to ${target}`);
        }
        return chain.transferWithAuthorization(args, address);
      },
      async sendTransaction() {
        throw new Revert("sendTransaction is not supported by the in-memory chain");
      },
      async waitForTransactionReceipt({ hash }) {
        const receipt = chain.receipts.get(hash);
        if (!receipt) {
          throw new Error(`transaction ${hash} not found`);
        }
        return receipt;
      },
      async getCode({ address: target }) {
        return chain.isToken(target) ? TOKEN_CODE : undefined;
      },
    };
  }
}
