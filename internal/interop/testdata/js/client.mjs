// A payer built from the reference x402 packages: @x402/fetch with an
// x402Client, the @x402/evm exact client scheme and a viem account.
//
// The private key is read from the X402_INTEROP_PRIVATE_KEY environment
// variable (never from the command line). Every mode prints one JSON line.
//
//   node client.mjs pay <url>
//     Pays <url> with wrapFetchWithPayment and prints
//     {"address", "status", "body", "paymentResponse"}.
//
//   node client.mjs attack <url>
//     Pays <url> once correctly, then sends payments that must be refused:
//       replay          the accepted PAYMENT-SIGNATURE header sent again
//       nonce-reuse     a new, validly signed authorization reusing the accepted nonce
//       tampered-value  value changed after signing (signature no longer matches)
//       underpay        a validly signed authorization for less than the price
//       underpay-quote  the same, with the echoed requirement's amount lowered too
//       expired         a validly signed authorization whose validBefore is past
//       not-yet-valid   a validly signed authorization whose validAfter is in the future
//     and prints {"address", "results": {"<case>": {"status", "error", "paymentResponse"}}}.
//
//   node client.mjs bench <url> <n>
//     Pays <url> once to warm up, then n times more with the same wrapFetchWithPayment, each
//     payment with a fresh nonce, checking every answer is a 200 with a successful
//     PAYMENT-RESPONSE; prints {"address", "n", "elapsedNs"}, the time of the n fetches alone
//     (the process's start-up and the warm-up are not in it).

import { wrapFetchWithPayment, x402Client, x402HTTPClient, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { authorizationTypes } from "@x402/evm";
import { getAddress, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const [mode, url] = process.argv.slice(2);
const key = process.env.X402_INTEROP_PRIVATE_KEY;
if (!mode || !url || !key) {
  console.error("usage: X402_INTEROP_PRIVATE_KEY=0x… node client.mjs pay|attack|bench <url> [n]");
  process.exit(2);
}

const account = privateKeyToAccount(key.startsWith("0x") ? key : `0x${key}`);
const client = registerExactEvmScheme(new x402Client(), { signer: account });
const httpClient = new x402HTTPClient(client);

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
  return { address: account.address, ...(await describe(response)) };
}

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

async function send(header) {
  const response = await fetch(url, { method: "GET", headers: header });
  const { status, error, paymentResponse } = await describe(response);
  return { status, error, paymentResponse };
}

// resign builds a new payload from a reference-made one, with the authorization
// changed by edit and signed again; accepted is edited by editAccepted.
async function resign(base, edit, editAccepted = (a) => a) {
  const authorization = edit({ ...base.payload.authorization, nonce: randomNonce() });
  const accepted = editAccepted({ ...base.accepted });
  const signature = await sign(accepted, authorization);
  return { ...base, accepted, payload: { ...base.payload, authorization, signature } };
}

async function attack() {
  const first = await fetch(url, { method: "GET" });
  if (first.status !== 402) {
    throw new Error(`expected 402 from ${url}, got ${first.status}`);
  }
  const paymentRequired = httpClient.getPaymentRequiredResponse((name) => first.headers.get(name));
  const requirement = paymentRequired.accepts[0];
  const now = Math.floor(Date.now() / 1000);
  const results = {};

  // A correct payment made by the reference client, the base of every attack.
  const good = await client.createPaymentPayload(paymentRequired);
  const goodHeader = httpClient.encodePaymentSignatureHeader(good);
  results.valid = await send(goodHeader);

  results.replay = await send(goodHeader);

  const reused = await resign(good, (a) => ({
    ...a,
    nonce: good.payload.authorization.nonce,
    validBefore: String(BigInt(a.validBefore) + 1n),
  }));
  results["nonce-reuse"] = await send(httpClient.encodePaymentSignatureHeader(reused));

  const fresh = await client.createPaymentPayload(paymentRequired);
  const tampered = {
    ...fresh,
    payload: {
      ...fresh.payload,
      authorization: { ...fresh.payload.authorization, value: String(BigInt(requirement.amount) - 1n) },
    },
  };
  results["tampered-value"] = await send(httpClient.encodePaymentSignatureHeader(tampered));

  const lower = String(BigInt(requirement.amount) / 2n);
  const underpay = await resign(good, (a) => ({ ...a, value: lower }));
  results.underpay = await send(httpClient.encodePaymentSignatureHeader(underpay));

  const underpayQuote = await resign(
    good,
    (a) => ({ ...a, value: lower }),
    (accepted) => ({ ...accepted, amount: lower }),
  );
  results["underpay-quote"] = await send(httpClient.encodePaymentSignatureHeader(underpayQuote));

  const expired = await resign(good, (a) => ({ ...a, validAfter: "0", validBefore: String(now - 60) }));
  results.expired = await send(httpClient.encodePaymentSignatureHeader(expired));

  const notYetValid = await resign(good, (a) => ({
    ...a,
    validAfter: String(now + 3600),
    validBefore: String(now + 7200),
  }));
  results["not-yet-valid"] = await send(httpClient.encodePaymentSignatureHeader(notYetValid));

  return { address: account.address, results };
}

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
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    await paidFetch(fetchWithPayment);
  }
  const elapsedNs = Number(process.hrtime.bigint() - start);
  return { address: account.address, n, elapsedNs };
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
