// A run of the Solana rail end to end, for people (the Go tests do not need it): the litesvm
// node of ../solana/node.mjs, server.mjs offering Solana exact payments settled by the
// reference facilitator, and client.mjs paying with the reference client.
//
// Usage, after `npm ci --ignore-scripts` in both folders: node smoke-svm.mjs [n]
//
// It gives the payer USDC and no SOL (the facilitator's fee payer pays the fees), pays 5
// times and checks that every payment settled and that the balances moved by exactly 5 ×
// the price; checks that simulating a settled transaction again answers AlreadyProcessed;
// runs client.mjs attack (a replayed PAYMENT-SIGNATURE among its cases, all to be refused);
// pays with a Token-2022 mint; and times n (default 20) paid fetches with client.mjs bench.
// It prints what it found as JSON and exits 1 on the first check that fails.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getBase58Decoder } from "@solana/kit";

const here = path.dirname(fileURLToPath(import.meta.url));
const PRICE = 10_000n;
const PAYMENTS = 5;
const n = Number(process.argv[2] ?? 20);

const children = [];

// start runs a program that announces itself with a JSON line on stdout and stops when its
// stdin closes; it returns that line.
function start(dir, args) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, dir), stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]));
    });
    child.on("exit", (code) => reject(new Error(`${args[0]} exited (${code}) before announcing itself:\n${stderr}`)));
  });
}

// client runs client.mjs with the payer's key and returns its JSON line.
function client(env, ...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["client.mjs", ...args], { cwd: here, env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client.mjs ${args[0]} failed:\n${err}`))));
  });
}

// newWallet returns a new keypair: its address and its 64-byte secret key, both base58.
function newWallet() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d, "base64url");
  const base58 = getBase58Decoder();
  return { address: base58.decode(pub), secret: base58.decode(Buffer.concat([seed, pub])) };
}

function check(ok, what, detail) {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(detail)}`);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const { url: rpcUrl } = await start("../solana", ["node.mjs"]);
  let id = 0;
  const rpc = async (method, ...params) => {
    const response = await fetch(rpcUrl, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
    const answer = await response.json();
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  const balanceOf = async (ata) => BigInt((await rpc("getTokenAccountBalance", ata, { commitment: "confirmed" })).value.amount);

  const payer = newWallet();
  const payTo = newWallet();
  const funded = 1_000_000n;
  const payerAta = await rpc("test_setUsdcBalance", payer.address, Number(funded));
  const payToAta = await rpc("test_setUsdcBalance", payTo.address, 0);
  const svm = { rpcUrl, payTo: payTo.address, amount: String(PRICE) };
  const server = await start(".", ["server.mjs", JSON.stringify({ svm })]);
  const env = { X402_INTEROP_SVM_SECRET: payer.secret, X402_INTEROP_SVM_RPC: rpcUrl };
  const found = { server: server.svm };

  // Five payments, each settled, moving exactly the price.
  const paid = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const out = await client(env, "pay", `${server.url}/paid`);
    check(out.status === 200 && out.paymentResponse?.success, "a payment did not settle", out);
    check(out.address === payer.address && out.paymentResponse.payer === payer.address, "the payer is not the wallet", out);
    paid.push(out.paymentResponse.transaction);
  }
  const moved = PRICE * BigInt(PAYMENTS);
  found.balances = { payer: String(await balanceOf(payerAta)), payTo: String(await balanceOf(payToAta)) };
  check(found.balances.payer === String(funded - moved) && found.balances.payTo === String(moved), "balances", found.balances);
  const payerSol = (await rpc("getBalance", payer.address)).value;
  check(payerSol === 0, "the payer holds SOL", payerSol);

  // The node refuses a message that already landed, in simulation as in sending.
  const settled = await rpc("getTransaction", paid.at(-1), { encoding: "base64", maxSupportedTransactionVersion: 0, commitment: "confirmed" });
  const again = await rpc("simulateTransaction", settled.transaction[0], { encoding: "base64", commitment: "confirmed" });
  found.simulateAgain = again.value.err;
  check(again.value.err === "AlreadyProcessed", "simulating a landed transaction", again.value);
  found.fee = settled.meta.fee;
  found.version = settled.version;

  // Payments that must be refused; the first is a good one, which settles.
  const attack = await client(env, "attack", `${server.url}/paid`);
  found.attack = Object.fromEntries(Object.entries(attack.results).map(([k, v]) => [k, `${v.status} ${v.error ?? ""}`.trim()]));
  for (const [name, result] of Object.entries(attack.results)) {
    check(name === "valid" ? result.status === 200 : result.status !== 200, `attack case ${name}`, result);
  }
  check(await balanceOf(payToAta) === moved + PRICE, "only the valid attack case paid", found.attack);

  // The payer's history, newest first, with the reference client's memos.
  const history = await rpc("getSignaturesForAddress", payer.address, { commitment: "confirmed" });
  check(history.length === PAYMENTS + 1 && history[history.length - 1].signature === paid[0], "the payer's history", history);
  found.memo = history[0].memo;

  // A Token-2022 mint.
  const mint22 = await rpc("test_createMint", null, 6, "token-2022");
  const payer22 = await rpc("test_setTokenBalance", payer.address, mint22, Number(funded));
  const payTo22 = await rpc("test_setTokenBalance", payTo.address, mint22, 0);
  const server22 = await start(".", ["server.mjs", JSON.stringify({ svm: { ...svm, mint: mint22, memo: "invoice 22" } })]);
  // The reference client pays only default assets unless told otherwise.
  const env22 = { ...env, X402_INTEROP_SPEND_CONTROLS: JSON.stringify({ allowedAssets: true }) };
  const out22 = await client(env22, "pay", `${server22.url}/paid`);
  check(out22.status === 200 && out22.paymentResponse?.success, "a Token-2022 payment", out22);
  check(await balanceOf(payer22) === funded - PRICE && await balanceOf(payTo22) === PRICE, "Token-2022 balances", out22);
  found.token2022 = (await rpc("getSignaturesForAddress", payTo22, { commitment: "confirmed", limit: 1 }))[0].memo;

  // Time.
  const bench = await client(env, "bench", `${server.url}/paid`, String(n));
  found.bench = { n: bench.n, meanMs: bench.elapsedNs / bench.n / 1e6, medianMs: median(bench.fetchNs) / 1e6 };
  return found;
}

try {
  console.log(JSON.stringify(await main(), null, 2));
} catch (e) {
  console.error(e.message);
  process.exitCode = 1;
} finally {
  for (const child of children) child.stdin.end();
}
