// A Solana JSON-RPC node over the litesvm runtime, for the Go tests of the gpuprice key
// purchase and of x402 payments on Solana. litesvm runs the real System, SPL Token,
// Token-2022, Associated Token Account, Memo and Compute Budget programs in process but has no
// RPC server, no slots of its own and no status cache; this program answers, from litesvm's
// results, the JSON-RPC methods a client, a resource server and an x402 facilitator call, in
// the shapes a real (Agave) node sends, and keeps what litesvm does not: a chain of slots
// with a blockhash each, the 150-block validity window of blockhashes, the status cache that
// refuses a message that already landed, commitment levels and the history of transactions.
//
// It listens on a free loopback port, prints {"url": "http://127.0.0.1:PORT"} on one line of
// stdout, and exits when its stdin closes. README.md lists the methods and the model.
//
// Besides the node's methods it answers these for tests, which write state directly:
//   test_setSolBalance [address, lamports]      the lamports of a wallet (a System account)
//   test_setUsdcBalance [owner, amount]         the USDC of owner's associated token account
//   test_createMint [mint|null, decimals, "token"|"token-2022"]
//                                               a mint without authorities, under the Token
//                                               or the Token-2022 program; returns its address
//   test_setTokenBalance [owner, mint, amount]  the balance of owner's associated token account
//                                               of mint, created (rent-exempt) if missing
//   test_advanceSlots [n, {"finalize": bool}]   n empty slots; returns the newest slot
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
// Mainnet's genesis hash: the x402 network solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp names it.
const GENESIS_HASH = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const TOKEN_PROGRAMS = { token: TOKEN_PROGRAM, "token-2022": TOKEN_2022_PROGRAM };
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const NATIVE_LOADER = "NativeLoader1111111111111111111111111111111";
// The Memo programs whose data a node reports as a transaction's memo (v1 and v2/v3).
const MEMO_PROGRAMS = ["Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo", "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"];
const API_VERSION = "litesvm-1.5.0";

// Fees: 5,000 lamports a signature, plus the priority fee: the compute-unit price (in
// micro-lamports) times the compute-unit limit, rounded up. Without a SetComputeUnitLimit the
// limit is 200,000 units for each instruction of a program and 3,000 for each of a builtin
// (a program of the native loader), at most 1,400,000: what litesvm charges.
const LAMPORTS_PER_SIGNATURE = 5000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION = 3_000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

// A blockhash lets a transaction land in a block at most 150 blocks higher
// (MAX_PROCESSING_AGE); a simulation, preflight included, allows 6 blocks less
// (MAX_TRANSACTION_FORWARDING_DELAY), as Agave does.
const BLOCKHASH_LIFETIME = 150n;
const SIMULATION_BLOCKHASH_LIFETIME = 144n;
// A slot is finalized (rooted) once 32 slots are built on it.
const FINALITY_DEPTH = 32n;
// The blocks kept: enough to check any blockhash still valid at the finalized slot.
const BLOCKS_KEPT = BLOCKHASH_LIFETIME + FINALITY_DEPTH + 1n;
// Without searchTransactionHistory, getSignatureStatuses looks 300 slots back.
const STATUS_CACHE_SLOTS = 300n;
// getSignaturesForAddress answers at most 1,000 signatures.
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
// The largest wire transaction a node accepts.
const MAX_TRANSACTION_SIZE = 1232;
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
// Token-2022 writes an account-type byte after the 165-byte base of an account with
// extensions; an associated token account of Token-2022 carries the ImmutableOwner extension.
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;
const EXTENSION_IMMUTABLE_OWNER = 7;

// JSON-RPC error codes of a Solana node.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const PREFLIGHT_FAILURE = -32002;
const SIGNATURE_VERIFICATION = -32003;
const UNSUPPORTED_TRANSACTION_VERSION = -32015;
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

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
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** RpcError is a JSON-RPC error answer. */
class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const invalidParams = (message) => new RpcError(INVALID_PARAMS, message);

// litesvm here checks neither signatures nor blockhashes and keeps no history: this node
// verifies signatures itself (a simulation may leave the fee payer's unsigned), keeps the
// blockhash window itself (litesvm knows only its latest blockhash, and a transaction whose
// blockhash is older but still valid must run), and keeps the status cache by message, as
// Agave does (litesvm's history is keyed by the first signature, which a partially signed
// transaction leaves empty).
const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n);

// --- the chain: slots, blocks and commitment ------------------------------------------

// Every slot holds a block, so a block's height is its slot. A transaction that lands opens
// the next slot; test_advanceSlots adds empty ones. "processed" and "confirmed" see the newest
// slot (litesvm has no forks: what it ran is confirmed at once); "finalized" sees the slot
// FINALITY_DEPTH below it, or a newer one that test_advanceSlots finalized.
const chain = {
  tip: 0n,
  finalizedFloor: 0n,
  blocks: new Map(), // slot -> {blockhash, blockTime}, for the last BLOCKS_KEPT slots
  hashSlots: new Map(), // blockhash -> slot, for the same blocks
};

function finalizedSlot() {
  const deep = chain.tip - FINALITY_DEPTH;
  return deep > chain.finalizedFloor ? deep : chain.finalizedFloor;
}

// openSlot makes slot the newest, with a block of its own: a new blockhash (litesvm's, so
// that its durable nonces follow) and the wall clock's time, written to the Clock sysvar too.
function openSlot(slot) {
  svm.warpToSlot(slot);
  const clock = svm.getClock();
  clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
  svm.setClock(clock);
  svm.expireBlockhash();
  const blockhash = svm.latestBlockhash();
  chain.blocks.set(slot, { blockhash, blockTime: Number(clock.unixTimestamp) });
  chain.hashSlots.set(blockhash, slot);
  chain.tip = slot;
  for (const [old, block] of chain.blocks) {
    if (old >= slot - BLOCKS_KEPT) break;
    chain.blocks.delete(old);
    chain.hashSlots.delete(block.blockhash);
  }
}

// advanceSlots adds n empty slots (only the last BLOCKS_KEPT need blocks of their own: the
// blockhashes of earlier ones could not be used any more). With finalize, every slot up to
// the new newest is finalized at once, as if the cluster had had the time to root them.
function advanceSlots(n, finalize) {
  const target = chain.tip + n;
  const first = target - BLOCKS_KEPT > chain.tip ? target - BLOCKS_KEPT : chain.tip + 1n;
  for (let slot = first; slot <= target; slot++) openSlot(slot);
  if (finalize) chain.finalizedFloor = chain.tip;
}

const COMMITMENTS = ["processed", "confirmed", "finalized"];

// commitmentOf returns the commitment a request's config names, finalized when none (as a
// node's default).
function commitmentOf(cfg) {
  const commitment = cfg.commitment ?? "finalized";
  if (!COMMITMENTS.includes(commitment)) {
    throw invalidParams(`Invalid params: unknown variant \`${commitment}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
  }
  return commitment;
}

// atLeastConfirmed refuses "processed" for the methods that read the ledger's history.
function atLeastConfirmed(commitment) {
  if (commitment === "processed") throw invalidParams("Method does not support commitment below `confirmed`");
  return commitment;
}

// bankSlot returns the slot of the block a request reads at its commitment, checking its
// minContextSlot.
function bankSlot(cfg, commitment = commitmentOf(cfg)) {
  const slot = commitment === "finalized" ? finalizedSlot() : chain.tip;
  if (cfg.minContextSlot !== undefined && BigInt(cfg.minContextSlot) > slot) {
    throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, "Minimum context slot has not been reached", { contextSlot: Number(slot) });
  }
  return slot;
}

// blockhashValid reports whether a transaction with blockhash may run in the block at slot:
// the blockhash is that of the block or of one at most lifetime blocks below it.
function blockhashValid(blockhash, slot, lifetime) {
  const issued = chain.hashSlots.get(blockhash);
  return issued !== undefined && issued <= slot && slot - issued <= lifetime;
}

const withContext = (value, slot = chain.tip) => ({ context: { apiVersion: API_VERSION, slot: Number(slot) }, value });

// --- accounts -------------------------------------------------------------------------

function u32(bytes, offset) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, true);
}

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

const isTokenProgram = (program) => program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;

// hasLayout reports whether a is a token program's record of the base size (an account's or
// a mint's), plain or, under Token-2022, followed by extensions of that account type.
function hasLayout(a, size, accountType) {
  if (!isTokenProgram(a.programAddress)) return false;
  if (a.data.length === size) return true;
  return a.programAddress === TOKEN_2022_PROGRAM && a.data.length > TOKEN_ACCOUNT_SIZE && a.data[TOKEN_ACCOUNT_SIZE] === accountType;
}

// tokenAccount decodes a token account of either token program, or returns null for any
// other account.
function tokenAccount(address) {
  const a = account(address);
  if (!a || !hasLayout(a, TOKEN_ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT)) return null;
  return {
    mint: addresses.decode(a.data.subarray(0, 32)),
    owner: addresses.decode(a.data.subarray(32, 64)),
    amount: u64(a.data, 64),
    programId: a.programAddress,
  };
}

// mintInfo decodes a mint of either token program, or returns null for any other account.
function mintInfo(mint) {
  const a = account(mint);
  if (!a || !hasLayout(a, MINT_SIZE, ACCOUNT_TYPE_MINT)) return null;
  return { supply: u64(a.data, 36), decimals: a.data[44], programId: a.programAddress };
}

function uiTokenAmount(amount, decimals) {
  const scale = 10n ** BigInt(decimals);
  let text = (amount / scale).toString();
  const frac = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  if (frac) text += "." + frac;
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

async function associatedTokenAddress(owner, mint, tokenProgram) {
  const [ata] = await getProgramDerivedAddress({
    programAddress: ATA_PROGRAM,
    seeds: [addresses.encode(owner), addresses.encode(tokenProgram), addresses.encode(mint)],
  });
  return ata;
}

function writeAccount(address, programAddress, data) {
  svm.setAccount({
    address,
    lamports: svm.minimumBalanceForRentExemption(BigInt(data.length)),
    programAddress,
    executable: false,
    data,
  });
}

// writeMint creates a mint under tokenProgram, without mint or freeze authority.
function writeMint(mint, tokenProgram, decimals, supply) {
  const data = new Uint8Array(MINT_SIZE);
  putU64(data, 36, supply);
  data[44] = decimals;
  data[45] = 1; // initialized
  writeAccount(mint, tokenProgram, data);
}

// setMintSupply rewrites the supply of a mint, leaving the rest of it as it is.
function setMintSupply(mint, supply) {
  const a = account(mint);
  const data = Uint8Array.from(a.data);
  putU64(data, 36, supply);
  svm.setAccount({ ...a, address: mint, data });
}

// writeTokenAccount creates an initialized token account as the Associated Token Account
// program creates one: under Token-2022 with the ImmutableOwner extension.
function writeTokenAccount(address, tokenProgram, mint, owner, amount) {
  const extended = tokenProgram === TOKEN_2022_PROGRAM;
  const data = new Uint8Array(TOKEN_ACCOUNT_SIZE + (extended ? 5 : 0));
  data.set(addresses.encode(mint), 0);
  data.set(addresses.encode(owner), 32);
  putU64(data, 64, amount);
  data[108] = 1; // initialized
  if (extended) {
    data[TOKEN_ACCOUNT_SIZE] = ACCOUNT_TYPE_ACCOUNT;
    data[TOKEN_ACCOUNT_SIZE + 1] = EXTENSION_IMMUTABLE_OWNER; // u16 type, then a u16 length of 0
  }
  writeAccount(address, tokenProgram, data);
}

// setTokenBalance sets the balance of owner's associated token account of mint, creating it
// when missing, and the mint's supply with it. It returns the token account's address.
async function setTokenBalance(owner, mint, amount) {
  const info = mintInfo(mint);
  if (!info) throw invalidParams(`Invalid params: ${mint} is not a mint`);
  const ata = await associatedTokenAddress(owner, mint, info.programId);
  const before = tokenAccount(ata)?.amount ?? 0n;
  writeTokenAccount(ata, info.programId, mint, owner, amount);
  setMintSupply(mint, info.supply - before + amount);
  return ata;
}

// snapshot reads the lamports and token balances of a message's accounts. Programs it
// invokes are not token accounts: their (large) data is not read.
function snapshot(message) {
  const keys = message.staticAccounts;
  const programs = new Set(message.instructions.map((ix) => ix.programAddressIndex));
  const balances = keys.map((k) => Number(svm.getBalance(k) ?? 0n));
  const tokens = [];
  keys.forEach((k, accountIndex) => {
    const t = programs.has(accountIndex) ? null : tokenAccount(k);
    if (!t) return;
    tokens.push({
      accountIndex,
      mint: t.mint,
      owner: t.owner,
      programId: t.programId,
      uiTokenAmount: uiTokenAmount(t.amount, mintInfo(t.mint)?.decimals ?? 0),
    });
  });
  return { balances, tokens };
}

// --- transaction errors ---------------------------------------------------------------

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

// A transaction's failure is kept as {json, text}: its error as a node writes it in JSON, and
// the text of a failed preflight's message.
const runtimeError = (err) => ({ json: transactionErrorJSON(err), text: transactionErrorText(err) });
const refusedAs = (name) => ({ json: name, text: TRANSACTION_ERRORS.find(([n]) => n === name)[1] });

// --- transactions ---------------------------------------------------------------------

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

// decodeTransaction decodes a wire transaction, legacy or v0, into its bytes, signatures,
// compiled message, first signature (the transaction's id) and the key of its message in the
// status cache (a hash of the message's bytes, as Agave keys it).
function decodeTransaction(text, encoding) {
  const bytes = wireBytes(text, encoding);
  if (bytes.length > MAX_TRANSACTION_SIZE) {
    throw invalidParams(
      `${encoding} encoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_TRANSACTION_SIZE} bytes)`,
    );
  }
  let tx, message;
  try {
    tx = getTransactionDecoder().decode(bytes);
    message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  } catch (e) {
    throw invalidParams(`failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: ${e.message}`);
  }
  if (message.version !== "legacy" && message.version !== 0) {
    throw invalidParams(`failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: unknown message version ${message.version}`);
  }
  if (message.addressTableLookups?.length) {
    throw invalidParams("Invalid params: this node does not resolve address lookup tables");
  }
  return {
    bytes,
    tx,
    message,
    signature: base58.encode(Object.values(tx.signatures)[0] ?? new Uint8Array(64)),
    messageKey: crypto.createHash("sha256").update(tx.messageBytes).digest("hex"),
  };
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

// isBuiltin reports whether program is a builtin (a program of the native loader); the
// answers are kept, as programs do not move between loaders.
const builtins = new Map();
function isBuiltin(program) {
  if (!builtins.has(program)) builtins.set(program, account(program)?.programAddress === NATIVE_LOADER);
  return builtins.get(program);
}

// transactionFee returns the fee of a message: its signatures and its priority fee.
function transactionFee(message) {
  let limit = null;
  let price = 0n;
  let defaultLimit = 0n;
  for (const ix of message.instructions) {
    const program = message.staticAccounts[ix.programAddressIndex];
    const data = ix.data ?? new Uint8Array();
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 2 && data.length === 5) limit = BigInt(u32(data, 1));
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 3 && data.length === 9) price = u64(data, 1);
    defaultLimit += isBuiltin(program) ? DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION : DEFAULT_UNITS_PER_INSTRUCTION;
  }
  limit ??= defaultLimit;
  if (limit > MAX_COMPUTE_UNIT_LIMIT) limit = MAX_COMPUTE_UNIT_LIMIT;
  const priority = (price * limit + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) + priority;
}

// memoOf returns a message's memo as a node reports it: the data of each Memo instruction as
// "[length] text", joined by "; ", or null without one.
function memoOf(message) {
  const memos = message.instructions
    .filter((ix) => MEMO_PROGRAMS.includes(message.staticAccounts[ix.programAddressIndex]))
    .map((ix) => {
      const data = ix.data ?? new Uint8Array();
      let text;
      try {
        text = utf8.decode(data);
      } catch {
        text = "(unparseable)";
      }
      return `[${data.length}] ${text}`;
    });
  return memos.length ? memos.join("; ") : null;
}

const uiInstruction = (programIdIndex, accounts, data, stackHeight) => ({
  programIdIndex,
  accounts: Array.from(accounts),
  data: base58.encode(data),
  stackHeight,
});

// uiInnerInstructions writes litesvm's inner instructions as a node does: for each top-level
// instruction that made any, its index and the instructions it invoked.
function uiInnerInstructions(perInstruction) {
  return perInstruction.flatMap((inner, index) =>
    inner.length === 0
      ? []
      : [{
          index,
          instructions: inner.map((i) => {
            const ix = i.instruction();
            return uiInstruction(ix.programIdIndex(), ix.accounts(), ix.data(), i.stackHeight());
          }),
        }],
  );
}

function uiReturnData(returnData) {
  const data = returnData.data();
  if (data.length === 0) return null;
  return { programId: addresses.decode(returnData.programId()), data: [Buffer.from(data).toString("base64"), "base64"] };
}

// The status cache: the slot each message landed in, by message key. A message that landed
// is refused (AlreadyProcessed) for as long as its blockhash lets it land again.
const statusCache = new Map();

// refusal returns the error the block at slot refuses a transaction with before running it,
// in Agave's order: a blockhash it does not know within lifetime, then a message it already
// holds; or null.
function refusal(decoded, slot, lifetime) {
  if (!blockhashValid(decoded.message.lifetimeToken, slot, lifetime)) return refusedAs("BlockhashNotFound");
  const landedAt = statusCache.get(decoded.messageKey);
  if (landedAt !== undefined && landedAt <= slot) return refusedAs("AlreadyProcessed");
  return null;
}

// simulation runs a transaction on litesvm without keeping its effects, as the block at slot
// would, and returns the value of simulateTransaction (also the data of a failed preflight)
// and the failure, if any.
function simulation(decoded, { slot, sigVerify = false, replaceRecentBlockhash = false, innerInstructions = false }) {
  const value = {
    accounts: null,
    err: null,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    logs: [],
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: 0,
  };
  let failure = sigVerify && !signaturesValid(decoded.tx) ? refusedAs("SignatureFailure") : null;
  if (replaceRecentBlockhash) {
    value.replacementBlockhash = { blockhash: chain.blocks.get(slot).blockhash, lastValidBlockHeight: Number(slot + BLOCKHASH_LIFETIME) };
  } else {
    failure ??= refusal(decoded, slot, SIMULATION_BLOCKHASH_LIFETIME);
  }
  if (failure) return { value: { ...value, err: failure.json }, failure };

  const result = svm.simulateTransaction(decoded.tx);
  const meta = result.meta();
  value.logs = meta.logs();
  value.unitsConsumed = Number(meta.computeUnitsConsumed());
  value.returnData = uiReturnData(meta.returnData());
  if (innerInstructions) value.innerInstructions = uiInnerInstructions(meta.innerInstructions());
  if (!(result instanceof FailedTransactionMetadata)) return { value, failure: null };
  failure = runtimeError(result.err());
  return { value: { ...value, err: failure.json }, failure };
}

// Transactions that landed (successfully or not): by base58 signature, and in order.
const landed = new Map();
const history = [];

// land runs a transaction in the next slot, as a leader would, and keeps it when it landed:
// when it succeeded, or failed once its fee was charged. One the block refuses (a blockhash
// too old or unknown, a message already processed) or that cannot pay its fee is dropped,
// as a cluster drops it: it never lands, and its signature has no status.
function land(decoded) {
  const slot = chain.tip + 1n;
  if (refusal(decoded, slot, BLOCKHASH_LIFETIME)) return;
  const { message } = decoded;
  const fee = transactionFee(message);
  const pre = snapshot(message);
  const result = svm.sendTransaction(decoded.tx);
  const post = snapshot(message);
  const failed = result instanceof FailedTransactionMetadata;
  if (failed && post.balances[0] >= pre.balances[0]) return;

  openSlot(slot);
  const meta = failed ? result.meta() : result;
  const rec = {
    ...decoded,
    index: history.length,
    slot,
    blockTime: chain.blocks.get(slot).blockTime,
    err: failed ? runtimeError(result.err()).json : null,
    fee: Number(fee),
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    innerInstructions: uiInnerInstructions(meta.innerInstructions()),
    returnData: uiReturnData(meta.returnData()),
    memo: memoOf(message),
    pre,
    post,
  };
  landed.set(rec.signature, rec);
  history.push(rec);
  statusCache.set(decoded.messageKey, slot);
}

const confirmationStatus = (rec) => (rec.slot <= finalizedSlot() ? "finalized" : "confirmed");

// uiTransaction writes a landed transaction in the "json" encoding.
function uiTransaction(rec) {
  const { message } = rec;
  const ui = {
    accountKeys: message.staticAccounts,
    header: {
      numRequiredSignatures: message.header.numSignerAccounts,
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
    },
    recentBlockhash: message.lifetimeToken,
    instructions: message.instructions.map((ix) =>
      uiInstruction(ix.programAddressIndex, ix.accountIndices ?? [], ix.data ?? new Uint8Array(), null),
    ),
  };
  if (message.version === 0) ui.addressTableLookups = [];
  return {
    signatures: Object.values(rec.tx.signatures).map((s) => base58.encode(s ?? new Uint8Array(64))),
    message: ui,
  };
}

function encodeTransaction(rec, encoding) {
  if (encoding === "json") return uiTransaction(rec);
  return [encoding === "base64" ? Buffer.from(rec.bytes).toString("base64") : base58.encode(rec.bytes), encoding];
}

// --- parameters -----------------------------------------------------------------------

function decodeParam(params, i, required) {
  const v = params[i];
  if (v === undefined || v === null) {
    if (required) throw invalidParams(`Invalid params: missing parameter ${i}`);
    return undefined;
  }
  return v;
}

// configParam returns the config object at params[i], {} when absent.
function configParam(params, i) {
  const cfg = decodeParam(params, i, false) ?? {};
  if (typeof cfg !== "object" || Array.isArray(cfg)) throw invalidParams(`Invalid params: parameter ${i} must be a config object`);
  return cfg;
}

// keyText checks that text is the base58 form of length bytes (an address, a signature).
function keyText(text, length) {
  try {
    if (typeof text !== "string" || base58.decode(text).length !== length) throw new Error();
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  return text;
}

const addressParam = (params, i) => keyText(decodeParam(params, i, true), 32);
const signatureText = (text) => keyText(text, 64);

function amountParam(params, i) {
  try {
    const amount = BigInt(decodeParam(params, i, true));
    if (amount < 0n || amount >= 1n << 64n) throw new Error();
    return amount;
  } catch (e) {
    throw e instanceof RpcError ? e : invalidParams(`Invalid params: parameter ${i} must be a u64`);
  }
}

// --- methods --------------------------------------------------------------------------

const methods = {
  getGenesisHash() {
    return GENESIS_HASH;
  },

  getSlot(params) {
    return Number(bankSlot(configParam(params, 0)));
  },

  getBlockHeight(params) {
    return Number(bankSlot(configParam(params, 0)));
  },

  getLatestBlockhash(params) {
    const slot = bankSlot(configParam(params, 0));
    const { blockhash } = chain.blocks.get(slot);
    return withContext({ blockhash, lastValidBlockHeight: Number(slot + BLOCKHASH_LIFETIME) }, slot);
  },

  isBlockhashValid(params) {
    const blockhash = keyText(decodeParam(params, 0, true), 32);
    const slot = bankSlot(configParam(params, 1));
    return withContext(blockhashValid(blockhash, slot, BLOCKHASH_LIFETIME), slot);
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
    const slot = bankSlot(configParam(params, 1));
    // A message whose blockhash the block does not know (any more) has no fee.
    if (!blockhashValid(message.lifetimeToken, slot, BLOCKHASH_LIFETIME)) return withContext(null, slot);
    return withContext(Number(transactionFee(message)), slot);
  },

  getAccountInfo(params) {
    const address = addressParam(params, 0);
    const cfg = configParam(params, 1);
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
    return withContext(uiTokenAmount(t.amount, mintInfo(t.mint)?.decimals ?? 0));
  },

  simulateTransaction(params) {
    const cfg = configParam(params, 1);
    if (cfg.sigVerify && cfg.replaceRecentBlockhash) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    const decoded = decodeTransaction(decodeParam(params, 0, true), cfg.encoding ?? "base58");
    const slot = bankSlot(cfg);
    const { value } = simulation(decoded, {
      slot,
      sigVerify: cfg.sigVerify,
      replaceRecentBlockhash: cfg.replaceRecentBlockhash,
      innerInstructions: cfg.innerInstructions,
    });
    return withContext(value, slot);
  },

  sendTransaction(params) {
    const opts = configParam(params, 1);
    const decoded = decodeTransaction(decodeParam(params, 0, true), opts.encoding ?? "base58");
    if (!signaturesValid(decoded.tx)) throw new RpcError(SIGNATURE_VERIFICATION, "Transaction signature verification failure");
    if (!opts.skipPreflight) {
      const slot = bankSlot({ commitment: opts.preflightCommitment, minContextSlot: opts.minContextSlot });
      const { value, failure } = simulation(decoded, { slot });
      if (failure) throw new RpcError(PREFLIGHT_FAILURE, `Transaction simulation failed: ${failure.text}`, value);
    }
    land(decoded);
    return decoded.signature;
  },

  getSignatureStatuses(params) {
    const signatures = decodeParam(params, 0, true);
    if (!Array.isArray(signatures)) throw invalidParams("Invalid params: expected an array of signatures");
    if (signatures.length > 256) throw invalidParams("Too many inputs provided; max 256");
    const cfg = configParam(params, 1);
    return withContext(
      signatures.map((s) => {
        const rec = landed.get(signatureText(s));
        if (!rec || (!cfg.searchTransactionHistory && chain.tip > rec.slot + STATUS_CACHE_SLOTS)) return null;
        const status = confirmationStatus(rec);
        return {
          slot: Number(rec.slot),
          confirmations: status === "finalized" ? null : Number(chain.tip - rec.slot),
          err: rec.err,
          status: rec.err ? { Err: rec.err } : { Ok: null },
          confirmationStatus: status,
        };
      }),
    );
  },

  getSignaturesForAddress(params) {
    const address = addressParam(params, 0);
    const cfg = configParam(params, 1);
    const limit = cfg.limit ?? MAX_SIGNATURES_FOR_ADDRESS;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
    }
    const before = cfg.before === undefined ? undefined : signatureText(cfg.before);
    const until = cfg.until === undefined ? undefined : signatureText(cfg.until);
    const slot = bankSlot(cfg, atLeastConfirmed(commitmentOf(cfg)));
    const visible = (rec) => rec.slot <= slot;

    let i = history.length - 1;
    if (before !== undefined) {
      // Listing starts below before; an unknown before lists nothing, as on a node.
      const rec = landed.get(before);
      if (!rec || !visible(rec)) return [];
      i = rec.index - 1;
    }
    const found = [];
    for (; i >= 0 && found.length < limit; i--) {
      const rec = history[i];
      if (rec.signature === until) break;
      if (!visible(rec) || !rec.message.staticAccounts.includes(address)) continue;
      found.push({
        signature: rec.signature,
        slot: Number(rec.slot),
        err: rec.err,
        memo: rec.memo,
        blockTime: rec.blockTime,
        confirmationStatus: confirmationStatus(rec),
      });
    }
    return found;
  },

  getTransaction(params) {
    const signature = signatureText(decodeParam(params, 0, true));
    // The config may also be just the encoding, in the older form.
    const cfg = typeof params[1] === "string" ? { encoding: params[1] } : configParam(params, 1);
    const encoding = cfg.encoding ?? "json";
    if (!["json", "base64", "base58"].includes(encoding)) {
      throw invalidParams(`Invalid params: unsupported encoding ${encoding}; this node supports json, base64 and base58`);
    }
    const slot = bankSlot(cfg, atLeastConfirmed(commitmentOf(cfg)));
    const rec = landed.get(signature);
    if (!rec || rec.slot > slot) return null;
    const maxVersion = cfg.maxSupportedTransactionVersion;
    if (rec.message.version === 0 && !(maxVersion >= 0)) {
      throw new RpcError(
        UNSUPPORTED_TRANSACTION_VERSION,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    const meta = {
      err: rec.err,
      status: rec.err ? { Err: rec.err } : { Ok: null },
      fee: rec.fee,
      preBalances: rec.pre.balances,
      postBalances: rec.post.balances,
      innerInstructions: rec.innerInstructions,
      logMessages: rec.logs,
      preTokenBalances: rec.pre.tokens,
      postTokenBalances: rec.post.tokens,
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: rec.unitsConsumed,
    };
    if (rec.returnData) meta.returnData = rec.returnData;
    const answer = { slot: Number(rec.slot), blockTime: rec.blockTime, transaction: encodeTransaction(rec, encoding), meta };
    if (maxVersion !== undefined) answer.version = rec.message.version;
    return answer;
  },

  // --- for tests ---

  test_setSolBalance(params) {
    const address = addressParam(params, 0);
    const lamports = amountParam(params, 1);
    const a = account(address);
    if (a && a.programAddress !== SYSTEM_PROGRAM) throw invalidParams("Invalid params: not a System account");
    svm.setAccount({ address, lamports, programAddress: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() });
    return null;
  },

  test_setUsdcBalance(params) {
    return setTokenBalance(addressParam(params, 0), USDC_MINT, amountParam(params, 1));
  },

  test_createMint(params) {
    const mint = params[0] == null ? addresses.decode(crypto.randomBytes(32)) : addressParam(params, 0);
    const decimals = decodeParam(params, 1, true);
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) throw invalidParams("Invalid params: decimals must be a u8");
    const program = decodeParam(params, 2, false) ?? "token";
    if (!Object.hasOwn(TOKEN_PROGRAMS, program)) throw invalidParams('Invalid params: the token program must be "token" or "token-2022"');
    if (account(mint)) throw invalidParams(`Invalid params: an account exists at ${mint}`);
    writeMint(mint, TOKEN_PROGRAMS[program], decimals, 0n);
    return mint;
  },

  test_setTokenBalance(params) {
    return setTokenBalance(addressParam(params, 0), addressParam(params, 1), amountParam(params, 2));
  },

  test_advanceSlots(params) {
    const n = amountParam(params, 0);
    advanceSlots(n, configParam(params, 1).finalize ?? true);
    return Number(chain.tip);
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

// The chain starts at litesvm's slot, finalized, with the USDC mint and no USDC.
openSlot(svm.getClock().slot);
chain.finalizedFloor = chain.tip;
writeMint(USDC_MINT, TOKEN_PROGRAM, USDC_DECIMALS, 0n);

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
