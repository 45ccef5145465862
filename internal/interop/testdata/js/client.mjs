// A payer built from the reference x402 packages: @x402/fetch with an x402Client and the
// exact client schemes of one or both rails:
//   EVM     @x402/evm's, with a viem account whose private key is read from
//           X402_INTEROP_PRIVATE_KEY;
//   Solana  @x402/svm's ExactSvmScheme, with a keypair signer whose secret key (base58, 64
//           bytes) is read from X402_INTEROP_SVM_SECRET, reading the chain through the node at
//           X402_INTEROP_SVM_RPC (the scheme's own registration helper has no RPC option and
//           would call the public cluster).
// Keys are read from the environment, never from the command line; at least one rail must be
// given. When a 402 offers several payments the client pays the first it can, in the
// server's order. The reference client's spend controls apply (default assets only, at most
// $1 a payment) unless X402_INTEROP_SPEND_CONTROLS holds others, as the JSON that
// x402Client.setSpendControls takes (e.g. {"allowedAssets": true} to pay any mint, or false).
// Every mode prints one JSON line; "address" is the payer's address on the rail paid.
//
//   node client.mjs pay <url>
//     Pays <url> with wrapFetchWithPayment and prints
//     {"address", "status", "body", "paymentResponse"}.
//
//   node client.mjs attack <url>
//     Pays <url> once correctly, then sends payments that must be refused, and prints
//     {"address", "results": {"<case>": {"status", "error", "paymentResponse"}}}. Over EVM:
//       replay          the accepted PAYMENT-SIGNATURE header sent again
//       nonce-reuse     a new, validly signed authorization reusing the accepted nonce
//       tampered-value  value changed after signing (signature no longer matches)
//       underpay        a validly signed authorization for less than the price
//       underpay-quote  the same, with the echoed requirement's amount lowered too
//       expired         a validly signed authorization whose validBefore is past
//       not-yet-valid   a validly signed authorization whose validAfter is in the future
//     Over Solana, each case a transaction made by the reference client, edited:
//       replay           the accepted PAYMENT-SIGNATURE header sent again
//       tampered-amount  the transfer's amount changed after signing
//       underpay         a validly signed transfer of less than the price
//       underpay-quote   the same, with the echoed requirement's amount lowered too
//       wrong-recipient  a validly signed transfer to the payer's own token account
//       stale-blockhash  a validly signed transaction whose blockhash the node never issued
//
//   node client.mjs bench <url> <n>
//     Pays <url> once to warm up, then n times more with the same wrapFetchWithPayment, each
//     payment a new one, checking every answer is a 200 with a successful PAYMENT-RESPONSE;
//     prints {"address", "n", "elapsedNs", "fetchNs"}: the time of the n fetches alone (the
//     process's start-up and the warm-up are not in it) and of each.

import { wrapFetchWithPayment, x402Client, x402HTTPClient, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { authorizationTypes } from "@x402/evm";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import {
  createKeyPairSignerFromBytes,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
} from "@solana/kit";
import { getAddress, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const [mode, url] = process.argv.slice(2);
const evmKey = process.env.X402_INTEROP_PRIVATE_KEY;
const svmSecret = process.env.X402_INTEROP_SVM_SECRET;
const svmRpc = process.env.X402_INTEROP_SVM_RPC;
const spendControls = process.env.X402_INTEROP_SPEND_CONTROLS;
if (!mode || !url || (!evmKey && !svmSecret) || (svmSecret && !svmRpc)) {
  console.error(
    "usage: X402_INTEROP_PRIVATE_KEY=0x… and/or X402_INTEROP_SVM_SECRET=<base58> X402_INTEROP_SVM_RPC=<url> " +
      "node client.mjs pay|attack|bench <url> [n]",
  );
  process.exit(2);
}

const client = new x402Client();
if (spendControls) client.setSpendControls(JSON.parse(spendControls));
const account = evmKey ? privateKeyToAccount(evmKey.startsWith("0x") ? evmKey : `0x${evmKey}`) : null;
if (account) registerExactEvmScheme(client, { signer: account });
const svmSigner = svmSecret ? await createKeyPairSignerFromBytes(getBase58Encoder().encode(svmSecret)) : null;
if (svmSigner) client.register("solana:*", new ExactSvmScheme(svmSigner, { rpcUrl: svmRpc }));
const httpClient = new x402HTTPClient(client);

const isSolana = (network) => network.startsWith("solana:");

// The network of the last payment made, to name its payer.
let paidNetwork = null;
client.onAfterPaymentCreation(async ({ selectedRequirements }) => {
  paidNetwork = selectedRequirements.network;
});

// payerAddress returns the payer's address on the rail of network, or, without one, of the
// last payment made (the EVM account's when none was).
function payerAddress(network = paidNetwork) {
  const solana = network ? isSolana(network) : !account;
  return solana ? svmSigner.address : account.address;
}

function decodeHeader(response, name, decode) {
  const value = response.headers.get(name);
  return value ? decode(value) : null;
}

async function describe(response) {
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  let paymentRequired = null;
  if (response.status === 402) {
    try {
      paymentRequired = httpClient.getPaymentRequiredResponse((name) => response.headers.get(name), body);
    } catch {
      paymentRequired = null;
    }
  }
  return {
    status: response.status,
    body,
    error: paymentRequired?.error ?? null,
    paymentResponse: decodeHeader(response, "PAYMENT-RESPONSE", decodePaymentResponseHeader),
  };
}

async function pay() {
  const fetchWithPayment = wrapFetchWithPayment(fetch, client);
  const response = await fetchWithPayment(url, { method: "GET" });
  const described = await describe(response);
  return { address: payerAddress(), ...described };
}

async function send(header) {
  const response = await fetch(url, { method: "GET", headers: header });
  const { status, error, paymentResponse } = await describe(response);
  return { status, error, paymentResponse };
}

const encodeHeader = (payload) => httpClient.encodePaymentSignatureHeader(payload);

// --- attacks over EVM ---

// sign returns the EIP-712 signature of an authorization under the domain the
// requirements name, exactly as the reference client computes it.
function sign(requirements, authorization) {
  return account.signTypedData({
    domain: {
      name: requirements.extra.name,
      version: requirements.extra.version,
      chainId: Number(requirements.network.split(":")[1]),
      verifyingContract: getAddress(requirements.asset),
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
}

function randomNonce() {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

// resign builds a new payload from a reference-made one, with the authorization
// changed by edit and signed again; accepted is edited by editAccepted.
async function resign(base, edit, editAccepted = (a) => a) {
  const authorization = edit({ ...base.payload.authorization, nonce: randomNonce() });
  const accepted = editAccepted({ ...base.accepted });
  const signature = await sign(accepted, authorization);
  return { ...base, accepted, payload: { ...base.payload, authorization, signature } };
}

async function attackEvm(paymentRequired) {
  const requirement = paymentRequired.accepts[0];
  const now = Math.floor(Date.now() / 1000);
  const results = {};

  // A correct payment made by the reference client, the base of every attack.
  const good = await client.createPaymentPayload(paymentRequired);
  const goodHeader = encodeHeader(good);
  results.valid = await send(goodHeader);

  results.replay = await send(goodHeader);

  const reused = await resign(good, (a) => ({
    ...a,
    nonce: good.payload.authorization.nonce,
    validBefore: String(BigInt(a.validBefore) + 1n),
  }));
  results["nonce-reuse"] = await send(encodeHeader(reused));

  const fresh = await client.createPaymentPayload(paymentRequired);
  const tampered = {
    ...fresh,
    payload: {
      ...fresh.payload,
      authorization: { ...fresh.payload.authorization, value: String(BigInt(requirement.amount) - 1n) },
    },
  };
  results["tampered-value"] = await send(encodeHeader(tampered));

  const lower = String(BigInt(requirement.amount) / 2n);
  const underpay = await resign(good, (a) => ({ ...a, value: lower }));
  results.underpay = await send(encodeHeader(underpay));

  const underpayQuote = await resign(
    good,
    (a) => ({ ...a, value: lower }),
    (accepted) => ({ ...accepted, amount: lower }),
  );
  results["underpay-quote"] = await send(encodeHeader(underpayQuote));

  const expired = await resign(good, (a) => ({ ...a, validAfter: "0", validBefore: String(now - 60) }));
  results.expired = await send(encodeHeader(expired));

  const notYetValid = await resign(good, (a) => ({
    ...a,
    validAfter: String(now + 3600),
    validBefore: String(now + 7200),
  }));
  results["not-yet-valid"] = await send(encodeHeader(notYetValid));

  return results;
}

// --- attacks over Solana ---

const TRANSFER_CHECKED = 12;

// transferIndex returns the index of the message's TransferChecked instruction.
function transferIndex(message) {
  return message.instructions.findIndex((ix) => ix.data?.[0] === TRANSFER_CHECKED && ix.data.length === 10);
}

// editTransfer returns message with its TransferChecked instruction changed by edit, which
// receives copies of the instruction's data and account indices.
function editTransfer(message, edit) {
  const i = transferIndex(message);
  const instructions = message.instructions.map((ix, k) => {
    if (k !== i) return ix;
    const edited = { ...ix, data: Uint8Array.from(ix.data), accountIndices: [...ix.accountIndices] };
    edit(edited);
    return edited;
  });
  return { ...message, instructions };
}

function setAmount(message, amount) {
  return editTransfer(message, (ix) => new DataView(ix.data.buffer).setBigUint64(1, amount, true));
}

// variant returns a payment made from a reference-made one whose transaction's message is
// changed by editMessage and accepted by editAccepted. With resign the payer signs the new
// message; without, its signature over the old one is kept. The fee payer's signature stays
// empty, for the facilitator.
async function variant(base, editMessage, { resign = true, editAccepted = (a) => a } = {}) {
  const tx = getTransactionDecoder().decode(Buffer.from(base.payload.transaction, "base64"));
  const message = editMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
  const messageBytes = getCompiledTransactionMessageEncoder().encode(message);
  const signatures = { ...tx.signatures };
  if (resign) Object.assign(signatures, ...(await svmSigner.signMessages([{ content: messageBytes, signatures: {} }])));
  const wire = getTransactionEncoder().encode({ messageBytes, signatures });
  return {
    ...base,
    accepted: editAccepted({ ...base.accepted }),
    payload: { ...base.payload, transaction: Buffer.from(wire).toString("base64") },
  };
}

async function attackSvm(paymentRequired) {
  const requirement = paymentRequired.accepts[0];
  const amount = BigInt(requirement.amount);
  const lower = amount / 2n;
  // Each case starts from a new payment of the reference client (its memo makes it unique).
  const fresh = () => client.createPaymentPayload(paymentRequired);
  const results = {};

  const goodHeader = encodeHeader(await fresh());
  results.valid = await send(goodHeader);
  results.replay = await send(goodHeader);

  const tampered = await variant(await fresh(), (m) => setAmount(m, amount - 1n), { resign: false });
  results["tampered-amount"] = await send(encodeHeader(tampered));

  const underpay = await variant(await fresh(), (m) => setAmount(m, lower));
  results.underpay = await send(encodeHeader(underpay));

  const underpayQuote = await variant(await fresh(), (m) => setAmount(m, lower), {
    editAccepted: (accepted) => ({ ...accepted, amount: String(lower) }),
  });
  results["underpay-quote"] = await send(encodeHeader(underpayQuote));

  // Accounts of TransferChecked: source, mint, destination, authority.
  const wrongRecipient = await variant(await fresh(), (m) => editTransfer(m, (ix) => (ix.accountIndices[2] = ix.accountIndices[0])));
  results["wrong-recipient"] = await send(encodeHeader(wrongRecipient));

  const unknownBlockhash = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32)));
  const stale = await variant(await fresh(), (m) => ({ ...m, lifetimeToken: unknownBlockhash }));
  results["stale-blockhash"] = await send(encodeHeader(stale));

  return results;
}

// attack runs the cases of the rail of the first payment the 402 offers that this client
// can make.
async function attack() {
  const first = await fetch(url, { method: "GET" });
  if (first.status !== 402) {
    throw new Error(`expected 402 from ${url}, got ${first.status}`);
  }
  const paymentRequired = httpClient.getPaymentRequiredResponse((name) => first.headers.get(name));
  const requirement = paymentRequired.accepts.find((r) => (isSolana(r.network) ? svmSigner : account));
  if (!requirement) throw new Error(`${url} offers no payment this client can make`);
  const offer = { ...paymentRequired, accepts: [requirement] };
  const results = isSolana(requirement.network) ? await attackSvm(offer) : await attackEvm(offer);
  return { address: payerAddress(requirement.network), results };
}

// --- bench ---

// paidFetch pays url once with fetchWithPayment and fails unless the payment settled.
async function paidFetch(fetchWithPayment) {
  const response = await fetchWithPayment(url, { method: "GET" });
  await response.arrayBuffer();
  const receipt = decodeHeader(response, "PAYMENT-RESPONSE", decodePaymentResponseHeader);
  if (response.status !== 200 || !receipt?.success) {
    throw new Error(`paid fetch: status ${response.status}, receipt ${JSON.stringify(receipt)}`);
  }
}

async function bench() {
  const n = Number(process.argv[4]);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`bench needs a positive number of fetches, got ${process.argv[4]}`);
  }
  const fetchWithPayment = wrapFetchWithPayment(fetch, client);
  await paidFetch(fetchWithPayment);
  const fetchNs = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const before = process.hrtime.bigint();
    await paidFetch(fetchWithPayment);
    fetchNs.push(Number(process.hrtime.bigint() - before));
  }
  const elapsedNs = Number(process.hrtime.bigint() - start);
  return { address: payerAddress(), n, elapsedNs, fetchNs };
}

const modes = { pay, attack, bench };

try {
  const result = modes[mode] ? await modes[mode]() : null;
  if (!result) {
    throw new Error(`unknown mode ${mode}`);
  }
  process.stdout.write(JSON.stringify(result) + "\n");
} catch (error) {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
}
