// A Solana JSON-RPC node over the litesvm runtime, for the Go tests of the gpuprice key
// purchase. litesvm runs the real System, SPL Token, Associated Token Account and Memo
// programs in process but has no RPC server; this program answers, from litesvm's results,
// the JSON-RPC methods a client calls to buy and confirm a payment, in the shapes a real
// node sends.
//
// It listens on a free loopback port, prints {"url": "http://127.0.0.1:PORT"} on one line of
// stdout, and exits when its stdin closes.
//
// Besides the node's methods it answers three for tests, which write state directly:
//   test_setSolBalance [address, lamports]  the lamports of a wallet (a System account)
//   test_setUsdcBalance [owner, amount]     the USDC of owner's associated token account,
//                                           created rent-exempt if missing
//   test_advanceSlots [n]                   moves the clock n slots on; a blockhash older
//                                           than 150 slots is replaced
import http from "node:http";
import crypto from "node:crypto";
import { LiteSVM } from "litesvm";
import {
  FailedTransactionMetadata,
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from "litesvm/dist/internal.js";
import {
  getAddressCodec,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getProgramDerivedAddress,
  getTransactionDecoder,
} from "@solana/kit";

const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDC_DECIMALS = 6;
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const API_VERSION = "litesvm-1.5.0";
// The runtime's fee per signature: litesvm charges a transaction without a compute-budget
// instruction 5,000 lamports for each signature, as the cluster does.
const LAMPORTS_PER_SIGNATURE = 5000n;
// A blockhash is usable for 150 slots.
const BLOCKHASH_LIFETIME = 150n;
// Without searchTransactionHistory, getSignatureStatuses looks 300 slots back.
const STATUS_CACHE_SLOTS = 300n;
// The largest wire transaction a node accepts.
const MAX_TRANSACTION_SIZE = 1232;
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;

// JSON-RPC error codes of a Solana node.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const PREFLIGHT_FAILURE = -32002;
const SIGNATURE_VERIFICATION = -32003;

// The variants of the runtime's TransactionError without fields, in litesvm's numbering, with
// the texts a node shows for them.
const TRANSACTION_ERRORS = [
  ["AccountInUse", "Account in use"],
  ["AccountLoadedTwice", "Account loaded twice"],
  ["AccountNotFound", "Attempt to debit an account but found no record of a prior credit."],
  ["ProgramAccountNotFound", "Attempt to load a program that does not exist"],
  ["InsufficientFundsForFee", "Insufficient funds for fee"],
  ["InvalidAccountForFee", "This account may not be used to pay transaction fees"],
  ["AlreadyProcessed", "This transaction has already been processed"],
  ["BlockhashNotFound", "Blockhash not found"],
  ["CallChainTooDeep", "Loader call chain is too deep"],
  ["MissingSignatureForFee", "Transaction requires a fee but has no signature present"],
  ["InvalidAccountIndex", "Transaction contains an invalid account reference"],
  ["SignatureFailure", "Transaction did not pass signature verification"],
  ["InvalidProgramForExecution", "This program may not be used for executing instructions"],
  ["SanitizeFailure", "Transaction failed to sanitize accounts offsets correctly"],
  ["ClusterMaintenance", "Transactions are currently disabled due to cluster maintenance"],
  ["AccountBorrowOutstanding", "Transaction processing left an account with an outstanding borrowed reference"],
  ["WouldExceedMaxBlockCostLimit", "Transaction would exceed max Block Cost Limit"],
  ["UnsupportedVersion", "Transaction version is unsupported"],
  ["InvalidWritableAccount", "Transaction loads a writable account that cannot be written"],
  ["WouldExceedMaxAccountCostLimit", "Transaction would exceed max account limit within the block"],
  ["WouldExceedAccountDataBlockLimit", "Transaction would exceed account data limit within the block"],
  ["TooManyAccountLocks", "Transaction locked too many accounts"],
  ["AddressLookupTableNotFound", "Transaction loads an address table account that doesn't exist"],
  ["InvalidAddressLookupTableOwner", "Transaction loads an address table account with an invalid owner"],
  ["InvalidAddressLookupTableData", "Transaction loads an address table account with invalid data"],
  ["InvalidAddressLookupTableIndex", "Transaction address table lookup uses an invalid index"],
  ["InvalidRentPayingAccount", "Transaction leaves an account with a lower balance than rent-exempt minimum"],
  ["WouldExceedMaxVoteCostLimit", "Transaction would exceed max Vote Cost Limit"],
  ["WouldExceedAccountDataTotalLimit", "Transaction would exceed total account data limit"],
  ["MaxLoadedAccountsDataSizeExceeded", "Transaction exceeded max loaded accounts data size cap"],
  ["ResanitizationNeeded", "ResanitizationNeeded"],
  ["InvalidLoadedAccountsDataSizeLimit", "LoadedAccountsDataSizeLimit set for transaction must be greater than 0."],
  ["UnbalancedTransaction", "Sum of account balances before and after transaction do not match"],
  ["ProgramCacheHitMaxLimit", "Program cache hit max limit"],
  ["CommitCancelled", "CommitCancelled"],
];

// The variants of InstructionError without fields, in litesvm's numbering, with their texts.
const INSTRUCTION_ERRORS = [
  ["GenericError", "generic instruction error"],
  ["InvalidArgument", "invalid program argument"],
  ["InvalidInstructionData", "invalid instruction data"],
  ["InvalidAccountData", "invalid account data for instruction"],
  ["AccountDataTooSmall", "account data too small for instruction"],
  ["InsufficientFunds", "insufficient funds for instruction"],
  ["IncorrectProgramId", "incorrect program id for instruction"],
  ["MissingRequiredSignature", "missing required signature for instruction"],
  ["AccountAlreadyInitialized", "instruction requires an uninitialized account"],
  ["UninitializedAccount", "instruction requires an initialized account"],
  ["UnbalancedInstruction", "sum of account balances before and after instruction do not match"],
  ["ModifiedProgramId", "instruction illegally modified the program id of an account"],
  ["ExternalAccountLamportSpend", "instruction spent from the balance of an account it does not own"],
  ["ExternalAccountDataModified", "instruction modified data of an account it does not own"],
  ["ReadonlyLamportChange", "instruction changed the balance of a read-only account"],
  ["ReadonlyDataModified", "instruction modified data of a read-only account"],
  ["DuplicateAccountIndex", "instruction contains duplicate accounts"],
  ["ExecutableModified", "instruction changed executable bit of an account"],
  ["RentEpochModified", "instruction modified rent epoch of an account"],
  ["NotEnoughAccountKeys", "insufficient account keys for instruction"],
  ["AccountDataSizeChanged", "program other than the account's owner changed the size of the account data"],
  ["AccountNotExecutable", "instruction expected an executable account"],
  ["AccountBorrowFailed", "instruction tries to borrow reference for an account which is already borrowed"],
  ["AccountBorrowOutstanding", "instruction left account with an outstanding borrowed reference"],
  ["DuplicateAccountOutOfSync", "instruction modifications of multiply-passed account differ"],
  ["InvalidError", "program returned invalid error code"],
  ["ExecutableDataModified", "instruction changed executable accounts data"],
  ["ExecutableLamportChange", "instruction changed the balance of an executable account"],
  ["ExecutableAccountNotRentExempt", "executable accounts must be rent exempt"],
  ["UnsupportedProgramId", "Unsupported program id"],
  ["CallDepth", "Cross-program invocation call depth too deep"],
  ["MissingAccount", "An account required by the instruction is missing"],
  ["ReentrancyNotAllowed", "Cross-program invocation reentrancy not allowed for this instruction"],
  ["MaxSeedLengthExceeded", "Length of the seed is too long for address generation"],
  ["InvalidSeeds", "Provided seeds do not result in a valid address"],
  ["InvalidRealloc", "Failed to reallocate account data"],
  ["ComputationalBudgetExceeded", "Computational budget exceeded"],
  ["PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account"],
  ["ProgramEnvironmentSetupFailure", "Failed to create program execution environment"],
  ["ProgramFailedToComplete", "Program failed to complete"],
  ["ProgramFailedToCompile", "Program failed to compile"],
  ["Immutable", "Account is immutable"],
  ["IncorrectAuthority", "Incorrect authority provided"],
  ["AccountNotRentExempt", "An account does not have enough lamports to be rent-exempt"],
  ["InvalidAccountOwner", "Invalid account owner"],
  ["ArithmeticOverflow", "Program arithmetic overflowed"],
  ["UnsupportedSysvar", "Unsupported sysvar"],
  ["IllegalOwner", "Provided owner is not allowed"],
  ["MaxAccountsDataAllocationsExceeded", "Accounts data allocations exceeded the maximum allowed per transaction"],
  ["MaxAccountsExceeded", "Max accounts exceeded"],
  ["MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded"],
  ["BuiltinProgramsMustConsumeComputeUnits", "Builtin programs must consume compute units"],
  ["BorshIoError", "Failed to serialize or deserialize account data"],
];

const addresses = getAddressCodec();
const base58 = { encode: (bytes) => getBase58Decoder().decode(bytes), decode: (text) => getBase58Encoder().encode(text) };

/** RpcError is a JSON-RPC error answer. */
class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const invalidParams = (message) => new RpcError(INVALID_PARAMS, message);

const svm = new LiteSVM();
// The blockhash clients get and the slot it was issued at.
let issued = { hash: svm.latestBlockhash(), slot: svm.getClock().slot };
// Transactions that landed (successfully or not), by base58 signature.
const landed = new Map();

const slot = () => svm.getClock().slot;
const withContext = (value) => ({ context: { apiVersion: API_VERSION, slot: Number(slot()) }, value });

// --- accounts -------------------------------------------------------------------------

function u64(bytes, offset) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset, true);
}

function putU64(bytes, offset, value) {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setBigUint64(offset, value, true);
}

function account(address) {
  const a = svm.getAccount(address);
  return a.exists ? a : null;
}

// tokenAccount decodes an SPL Token account, or returns null for any other account.
function tokenAccount(address) {
  const a = account(address);
  if (!a || a.programAddress !== TOKEN_PROGRAM || a.data.length !== TOKEN_ACCOUNT_SIZE) return null;
  return {
    mint: addresses.decode(a.data.subarray(0, 32)),
    owner: addresses.decode(a.data.subarray(32, 64)),
    amount: u64(a.data, 64),
  };
}

function mintDecimals(mint) {
  const a = account(mint);
  if (!a || a.programAddress !== TOKEN_PROGRAM || a.data.length !== MINT_SIZE) return null;
  return a.data[44];
}

function uiTokenAmount(amount, decimals) {
  const scale = 10n ** BigInt(decimals);
  let text = (amount / scale).toString();
  const frac = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  if (frac) text += "." + frac;
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

async function associatedTokenAddress(owner, mint) {
  const [ata] = await getProgramDerivedAddress({
    programAddress: ATA_PROGRAM,
    seeds: [addresses.encode(owner), addresses.encode(TOKEN_PROGRAM), addresses.encode(mint)],
  });
  return ata;
}

// writeMint creates the USDC mint with 6 decimals, no mint or freeze authority, and supply.
function writeMint(supply) {
  const data = new Uint8Array(MINT_SIZE);
  putU64(data, 36, supply);
  data[44] = USDC_DECIMALS;
  data[45] = 1; // initialized
  svm.setAccount({
    address: USDC_MINT,
    lamports: svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)),
    programAddress: TOKEN_PROGRAM,
    executable: false,
    data,
  });
}

// --- transactions ---------------------------------------------------------------------

function transactionErrorJSON(err) {
  if (typeof err === "number") return TRANSACTION_ERRORS[err]?.[0] ?? `TransactionError(${err})`;
  if (err instanceof TransactionErrorInstructionError) return { InstructionError: [err.index, instructionErrorJSON(err.err())] };
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return String(err);
}

function instructionErrorJSON(err) {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err]?.[0] ?? `InstructionError(${err})`;
  if (err instanceof InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof InstructionErrorBorshIo) return { BorshIoError: err.msg };
  return String(err);
}

function transactionErrorText(err) {
  if (typeof err === "number") return TRANSACTION_ERRORS[err]?.[1] ?? `transaction error ${err}`;
  if (err instanceof TransactionErrorInstructionError) {
    return `Error processing Instruction ${err.index}: ${instructionErrorText(err.err())}`;
  }
  if (err instanceof TransactionErrorDuplicateInstruction) {
    return `Transaction contains a duplicate instruction (${err.index}) that is not allowed`;
  }
  if (err instanceof TransactionErrorInsufficientFundsForRent) {
    return `Transaction results in an account (${err.accountIndex}) with insufficient funds for rent`;
  }
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return `Execution of the program referenced by account at index ${err.accountIndex} is temporarily restricted.`;
  }
  return String(err);
}

function instructionErrorText(err) {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err]?.[1] ?? `instruction error ${err}`;
  if (err instanceof InstructionErrorCustom) return `custom program error: 0x${err.code.toString(16)}`;
  if (err instanceof InstructionErrorBorshIo) return `Failed to serialize or deserialize account data: ${err.msg}`;
  return String(err);
}

// decodeWire decodes a wire transaction: its signatures, message bytes and compiled message.
function decodeWire(bytes) {
  const tx = getTransactionDecoder().decode(bytes);
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  return { tx, message };
}

const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

// signaturesValid verifies every ed25519 signature over the message bytes as sent.
function signaturesValid(tx) {
  for (const [signer, signature] of Object.entries(tx.signatures)) {
    if (!signature) return false;
    const key = crypto.createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, addresses.encode(signer)]),
      format: "der",
      type: "spki",
    });
    if (!crypto.verify(null, tx.messageBytes, key, signature)) return false;
  }
  return true;
}

// snapshot reads the lamports and token balances of a transaction's accounts.
function snapshot(keys) {
  const balances = keys.map((k) => Number(account(k)?.lamports ?? 0n));
  const tokens = [];
  keys.forEach((k, accountIndex) => {
    const t = tokenAccount(k);
    if (!t) return;
    tokens.push({
      accountIndex,
      mint: t.mint,
      owner: t.owner,
      programId: TOKEN_PROGRAM,
      uiTokenAmount: uiTokenAmount(t.amount, mintDecimals(t.mint) ?? 0),
    });
  });
  return { balances, tokens };
}

function decodeParam(params, i, required) {
  const v = params[i];
  if (v === undefined || v === null) {
    if (required) throw invalidParams(`Invalid params: missing parameter ${i}`);
    return undefined;
  }
  return v;
}

function addressParam(params, i) {
  const text = decodeParam(params, i, true);
  try {
    if (typeof text !== "string" || addresses.encode(text).length !== 32) throw new Error();
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  return text;
}

function wireBytes(text, encoding) {
  if (typeof text !== "string") throw invalidParams("Invalid params: the transaction must be a string");
  switch (encoding) {
    case "base64":
      return Uint8Array.from(Buffer.from(text, "base64"));
    case "base58":
      try {
        return base58.decode(text);
      } catch (e) {
        throw invalidParams(`invalid base58 encoding: ${e.message}`);
      }
    default:
      throw invalidParams(`Invalid params: unsupported encoding ${encoding}`);
  }
}

// --- methods --------------------------------------------------------------------------

const methods = {
  getLatestBlockhash() {
    return withContext({ blockhash: issued.hash, lastValidBlockHeight: Number(issued.slot + BLOCKHASH_LIFETIME) });
  },

  getBlockHeight() {
    return Number(slot());
  },

  getBalance(params) {
    return withContext(Number(account(addressParam(params, 0))?.lamports ?? 0n));
  },

  getMinimumBalanceForRentExemption(params) {
    const size = decodeParam(params, 0, true);
    if (!Number.isInteger(size) || size < 0) throw invalidParams("Invalid params: the data length must be a whole number");
    return Number(svm.minimumBalanceForRentExemption(BigInt(size)));
  },

  getFeeForMessage(params) {
    const text = decodeParam(params, 0, true);
    let message;
    try {
      message = getCompiledTransactionMessageDecoder().decode(Buffer.from(text, "base64"));
    } catch (e) {
      throw invalidParams(`invalid transaction message: ${e.message}`);
    }
    // A message whose blockhash the node does not know has no fee.
    if (message.lifetimeToken !== issued.hash) return withContext(null);
    return withContext(Number(LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts)));
  },

  getAccountInfo(params) {
    const address = addressParam(params, 0);
    const cfg = decodeParam(params, 1, false) ?? {};
    const encoding = cfg.encoding ?? "base64";
    if (encoding !== "base64" && encoding !== "base58") {
      throw invalidParams(`Invalid params: unsupported encoding ${encoding}; this node supports base64 and base58`);
    }
    const a = account(address);
    if (!a) return withContext(null);
    let data = a.data;
    if (cfg.dataSlice) {
      const from = Math.min(Math.max(cfg.dataSlice.offset ?? 0, 0), data.length);
      data = data.subarray(from, Math.min(from + Math.max(cfg.dataSlice.length ?? 0, 0), data.length));
    }
    const encoded = encoding === "base64" ? Buffer.from(data).toString("base64") : base58.encode(data);
    return withContext({
      data: [encoded, encoding],
      executable: a.executable,
      lamports: Number(a.lamports),
      owner: a.programAddress,
      rentEpoch: 18446744073709551615n,
      space: a.data.length,
    });
  },

  getTokenAccountBalance(params) {
    const address = addressParam(params, 0);
    const t = tokenAccount(address);
    if (!t) {
      throw invalidParams(account(address) ? "Invalid param: not a Token account" : "Invalid param: could not find account");
    }
    return withContext(uiTokenAmount(t.amount, mintDecimals(t.mint) ?? 0));
  },

  sendTransaction(params) {
    const opts = decodeParam(params, 1, false) ?? {};
    const encoding = opts.encoding ?? "base58";
    const bytes = wireBytes(decodeParam(params, 0, true), encoding);
    if (bytes.length > MAX_TRANSACTION_SIZE) {
      throw invalidParams(
        `${encoding} encoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_TRANSACTION_SIZE} bytes)`,
      );
    }
    let decoded;
    try {
      decoded = decodeWire(bytes);
    } catch (e) {
      throw invalidParams(`failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: ${e.message}`);
    }
    const { tx, message } = decoded;
    if (!signaturesValid(tx)) throw new RpcError(SIGNATURE_VERIFICATION, "Transaction signature verification failure");
    const signature = base58.encode(Object.values(tx.signatures)[0]);

    if (!opts.skipPreflight) {
      const sim = svm.simulateTransaction(tx);
      if (sim instanceof FailedTransactionMetadata) {
        const meta = sim.meta();
        throw new RpcError(PREFLIGHT_FAILURE, `Transaction simulation failed: ${transactionErrorText(sim.err())}`, {
          accounts: null,
          err: transactionErrorJSON(sim.err()),
          innerInstructions: null,
          loadedAccountsDataSize: 0,
          logs: meta.logs(),
          replacementBlockhash: null,
          returnData: null,
          unitsConsumed: Number(meta.computeUnitsConsumed()),
        });
      }
    }

    const keys = message.staticAccounts;
    const pre = snapshot(keys);
    const result = svm.sendTransaction(tx);
    const post = snapshot(keys);
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    // A transaction lands when its fee was charged; one that could not pay it, or whose
    // blockhash or signature was refused, is dropped, as a node drops it.
    if (post.balances[0] < pre.balances[0] || !failed) {
      landed.set(signature, {
        slot: slot(),
        bytes,
        err: failed ? transactionErrorJSON(result.err()) : null,
        fee: Number(LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts)),
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        pre,
        post,
        version: message.version,
      });
    }
    return signature;
  },

  getSignatureStatuses(params) {
    const signatures = decodeParam(params, 0, true);
    if (!Array.isArray(signatures)) throw invalidParams("Invalid params: expected an array of signatures");
    if (signatures.length > 256) throw invalidParams("Too many inputs provided; max 256");
    const cfg = decodeParam(params, 1, false) ?? {};
    return withContext(
      signatures.map((s) => {
        const rec = landed.get(s);
        if (!rec || (!cfg.searchTransactionHistory && slot() > rec.slot + STATUS_CACHE_SLOTS)) return null;
        return {
          slot: Number(rec.slot),
          confirmations: null,
          err: rec.err,
          status: rec.err ? { Err: rec.err } : { Ok: null },
          // litesvm has no forks: what it executed is final.
          confirmationStatus: "finalized",
        };
      }),
    );
  },

  getTransaction(params) {
    const rec = landed.get(decodeParam(params, 0, true));
    const cfg = decodeParam(params, 1, false) ?? {};
    const encoding = cfg.encoding ?? "json";
    if (encoding !== "base64" && encoding !== "base58") {
      throw invalidParams(`Invalid params: unsupported encoding ${encoding}; this node supports base64 and base58`);
    }
    if (!rec) return null;
    const answer = {
      slot: Number(rec.slot),
      blockTime: Number(svm.getClock().unixTimestamp),
      transaction: [encoding === "base64" ? Buffer.from(rec.bytes).toString("base64") : base58.encode(rec.bytes), encoding],
      meta: {
        err: rec.err,
        status: rec.err ? { Err: rec.err } : { Ok: null },
        fee: rec.fee,
        preBalances: rec.pre.balances,
        postBalances: rec.post.balances,
        preTokenBalances: rec.pre.tokens,
        postTokenBalances: rec.post.tokens,
        innerInstructions: [],
        logMessages: rec.logs,
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: rec.unitsConsumed,
      },
    };
    if (cfg.maxSupportedTransactionVersion !== undefined) answer.version = rec.version;
    return answer;
  },

  // --- for tests ---

  test_setSolBalance(params) {
    const address = addressParam(params, 0);
    const lamports = BigInt(decodeParam(params, 1, true));
    const a = account(address);
    if (a && a.programAddress !== SYSTEM_PROGRAM) throw invalidParams("Invalid params: not a System account");
    svm.setAccount({ address, lamports, programAddress: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() });
    return null;
  },

  async test_setUsdcBalance(params) {
    const owner = addressParam(params, 0);
    const amount = BigInt(decodeParam(params, 1, true));
    const ata = await associatedTokenAddress(owner, USDC_MINT);
    const before = tokenAccount(ata)?.amount ?? 0n;
    const data = new Uint8Array(TOKEN_ACCOUNT_SIZE);
    data.set(addresses.encode(USDC_MINT), 0);
    data.set(addresses.encode(owner), 32);
    putU64(data, 64, amount);
    data[108] = 1; // initialized
    svm.setAccount({
      address: ata,
      lamports: svm.minimumBalanceForRentExemption(BigInt(TOKEN_ACCOUNT_SIZE)),
      programAddress: TOKEN_PROGRAM,
      executable: false,
      data,
    });
    writeMint(u64(account(USDC_MINT).data, 36) - before + amount);
    return ata;
  },

  test_advanceSlots(params) {
    const n = BigInt(decodeParam(params, 0, true));
    svm.warpToSlot(slot() + n);
    if (slot() > issued.slot + BLOCKHASH_LIFETIME) {
      svm.expireBlockhash();
      issued = { hash: svm.latestBlockhash(), slot: slot() };
    }
    return Number(slot());
  },
};

// --- server ---------------------------------------------------------------------------

// stringify writes JSON with a BigInt as a plain number, exact, as a node writes a u64.
function stringify(value) {
  return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `@@u64:${v}@@` : v)).replace(/"@@u64:(\d+)@@"/g, "$1");
}

async function call(req) {
  const id = req && typeof req === "object" && "id" in req ? req.id : null;
  try {
    if (!req || typeof req !== "object" || req.jsonrpc !== "2.0" || typeof req.method !== "string") {
      throw new RpcError(INVALID_REQUEST, "Invalid request");
    }
    const method = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
    if (!method) throw new RpcError(METHOD_NOT_FOUND, "Method not found");
    const params = req.params ?? [];
    if (!Array.isArray(params)) throw invalidParams("Invalid params: expected an array of parameters");
    return { jsonrpc: "2.0", result: await method(params), id };
  } catch (e) {
    if (!(e instanceof RpcError)) {
      process.stderr.write(`${req?.method}: ${e.stack}\n`);
      e = new RpcError(-32603, `Internal error: ${e.message}`);
    }
    const error = { code: e.code, message: e.message };
    if (e.data !== undefined) error.data = e.data;
    return { jsonrpc: "2.0", error, id };
  }
}

writeMint(0n);

const server = http.createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405, { Allow: "POST" }).end("Used HTTP Method is not allowed. POST or OPTIONS is required");
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      body = undefined;
    }
    let out;
    if (body === undefined) out = { jsonrpc: "2.0", error: { code: PARSE_ERROR, message: "Parse error" }, id: null };
    else if (Array.isArray(body)) {
      out = body.length === 0
        ? { jsonrpc: "2.0", error: { code: INVALID_REQUEST, message: "Invalid request" }, id: null }
        : await Promise.all(body.map(call));
    } else out = await call(body);
    res.writeHead(200, { "Content-Type": "application/json" }).end(stringify(out));
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }) + "\n");
});

// The test closes stdin to stop the node.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
