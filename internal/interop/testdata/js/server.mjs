// A resource server built from the reference x402 packages: the @x402/express payment
// middleware protects GET /paid, and verification and settlement go to an in-process
// facilitator, @x402/core's x402Facilitator, with the reference exact schemes of one or both
// rails:
//   EVM     the @x402/evm exact facilitator scheme, settling on a local anvil node (chain id
//           8453, as Base) holding Circle's USDC at Base's address (set up by usdc.mjs); an
//           unlocked anvil account sends the settlement transactions and pays their gas;
//   Solana  the @x402/svm exact facilitator scheme on toFacilitatorSvmSigner, settling through
//           the litesvm node of ../solana/node.mjs; its fee payer signs and pays the fees.
//
// Usage: node server.mjs '<json config>'
//   config: {
//     "rpcUrl": "http://127.0.0.1:8545",  the anvil node: offers EVM (optional when svm is given)
//     "payTo": "0x…",                     EVM recipient of payments (required with rpcUrl)
//     "amount": "10000",                  EVM price in atomic units (required with rpcUrl)
//     "fund": {"0x…": "1000000"},         USDC minted to each address before serving
//     "maxTimeoutSeconds": 60,
//     "svm": {                            offers Solana (optional; an empty member is a default)
//       "rpcUrl": "http://127.0.0.1:…",   the node.mjs node (required)
//       "payTo": "<base58 wallet>",       recipient (required); its token account of the
//                                         mint must exist (test_setTokenBalance [payTo, mint, 0])
//       "amount": "10000",                price in atomic units (required)
//       "mint": "EPjF…Dt1v",              the token, by default USDC; Token or Token-2022
//       "network": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",  mainnet (default), devnet or testnet
//       "feePayerSecret": "<base58 64-byte secret key>",  the facilitator's fee payer; when
//                                         absent a new one, given 10 SOL on the node
//       "memo": "…",                      the seller's memo (extra.memo), optional
//       "recentBlockhash": false,         true: the 402 carries extra.recentBlockhash
//       "maxTimeoutSeconds": 60
//     },
//     "order": ["evm", "svm"]             the order of the offers when both are made
//   }
//
// It listens on 127.0.0.1 on a free port and prints one JSON line on stdout:
//   {"port": 12345, "url": "http://127.0.0.1:12345", "body": …,
//    with EVM:    "network": …, "asset": …, "payTo": …, "amount": …, "facilitator": "0x…",
//    with Solana: "svm": {"network", "asset", "payTo", "amount", "feePayer"}}
// Every facilitator decision is logged on stderr, without signatures (nor, for Solana, the
// transaction's id, which is its fee payer's signature). It exits when stdin closes or on
// SIGTERM/SIGINT.

import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { SOLANA_MAINNET_CAIP2, USDC_MAINNET_ADDRESS, toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { ExactSvmScheme as ExactSvmFacilitatorScheme } from "@x402/svm/exact/facilitator";
import { createKeyPairSignerFromBytes, generateKeyPairSigner, getBase58Encoder } from "@solana/kit";
import { createTestClient, createWalletClient, defineChain, getAddress, http, publicActions, walletActions } from "viem";

import { USDC_BASE, USDC_NAME, USDC_VERSION, setUpUSDC } from "./usdc.mjs";

const config = JSON.parse(process.argv[2] ?? "{}");
const svmConfig = config.svm;
if ((!config.rpcUrl && !svmConfig) || (config.rpcUrl && (!config.payTo || !config.amount)) ||
  (svmConfig && (!svmConfig.rpcUrl || !svmConfig.payTo || !svmConfig.amount))) {
  console.error(
    'usage: node server.mjs \'{"rpcUrl":"http://127.0.0.1:8545","payTo":"0x…","amount":"10000","fund":{"0x…":"1000000"},' +
      '"svm":{"rpcUrl":"http://127.0.0.1:…","payTo":"<base58>","amount":"10000"},"order":["evm","svm"]}\' (EVM, Solana or both)',
  );
  process.exit(2);
}

// A rail is what one chain brings: its network, its facilitator and server schemes, its
// offer in the route's accepts, and its part of the announcement.

// evmRail sets up USDC on the anvil node and the EVM exact scheme settling there.
async function evmRail() {
  const chainId = 8453;
  const network = `eip155:${chainId}`;
  const payTo = getAddress(config.payTo);
  const amount = String(config.amount);

  // Anvil mines every transaction as it arrives: a receipt is there as soon as the hash is,
  // so viem need not poll at its default pace of seconds.
  const pollingInterval = 20;
  const chain = defineChain({
    id: chainId,
    name: "anvil",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const transport = http(config.rpcUrl);

  const anvil = createTestClient({ mode: "anvil", chain, transport, pollingInterval })
    .extend(publicActions)
    .extend(walletActions);
  const actualChainId = await anvil.getChainId();
  if (actualChainId !== chainId) {
    throw new Error(`the node at ${config.rpcUrl} has chain id ${actualChainId}, not ${chainId}`);
  }
  const accounts = await anvil.getAddresses();
  if (accounts.length < 3) {
    throw new Error(`anvil has ${accounts.length} unlocked accounts; 3 are needed`);
  }
  const facilitatorAddress = accounts[0];
  await setUpUSDC(anvil, { admin: accounts[accounts.length - 1], owner: accounts[accounts.length - 2] }, config.fund ?? {});

  const wallet = createWalletClient({ account: facilitatorAddress, chain, transport, pollingInterval }).extend(publicActions);
  const facilitatorSigner = toFacilitatorEvmSigner({
    address: facilitatorAddress,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] }),
    verifyTypedData: (args) => wallet.verifyTypedData(args),
    writeContract: (args) => wallet.writeContract({ ...args, args: args.args ?? [] }),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  });
  return {
    network,
    facilitatorScheme: new ExactEvmFacilitatorScheme(facilitatorSigner),
    serverScheme: new ExactEvmServerScheme(),
    offer: {
      scheme: "exact",
      network,
      payTo,
      price: { amount, asset: USDC_BASE, extra: { name: USDC_NAME, version: USDC_VERSION } },
      maxTimeoutSeconds: config.maxTimeoutSeconds ?? 60,
    },
    announcement: { network, asset: USDC_BASE, payTo, amount, facilitator: facilitatorAddress },
  };
}

// The SOL a generated fee payer is given: enough for thousands of settlements.
const FEE_PAYER_LAMPORTS = 10_000_000_000;

// nodeCall calls a JSON-RPC method of the Solana node.
async function nodeCall(url, method, params) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const answer = await response.json();
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

// feePayerSigner returns the facilitator's fee payer: the configured key, or a new one given
// FEE_PAYER_LAMPORTS on the node.
async function feePayerSigner() {
  if (svmConfig.feePayerSecret) {
    return createKeyPairSignerFromBytes(getBase58Encoder().encode(svmConfig.feePayerSecret));
  }
  const signer = await generateKeyPairSigner();
  await nodeCall(svmConfig.rpcUrl, "test_setSolBalance", [signer.address, FEE_PAYER_LAMPORTS]);
  return signer;
}

// svmRail sets up the Solana exact scheme settling through the node.
async function svmRail() {
  const network = svmConfig.network || SOLANA_MAINNET_CAIP2;
  const asset = svmConfig.mint || USDC_MAINNET_ADDRESS;
  const amount = String(svmConfig.amount);
  const feePayer = await feePayerSigner();
  // Without defaultRpcUrl the signer would call the network's public RPC.
  const facilitatorSigner = toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: svmConfig.rpcUrl });
  return {
    network,
    facilitatorScheme: new ExactSvmFacilitatorScheme(facilitatorSigner),
    serverScheme: new ExactSvmServerScheme(svmConfig.recentBlockhash ? { rpcUrl: svmConfig.rpcUrl } : {}),
    offer: {
      scheme: "exact",
      network,
      payTo: svmConfig.payTo,
      price: { amount, asset, extra: svmConfig.memo ? { memo: svmConfig.memo } : {} },
      maxTimeoutSeconds: svmConfig.maxTimeoutSeconds || 60,
    },
    announcement: { network, asset, payTo: svmConfig.payTo, amount, feePayer: feePayer.address },
  };
}

const rails = {};
if (config.rpcUrl) rails.evm = await evmRail();
if (svmConfig) rails.svm = await svmRail();
const offered = (config.order ?? ["evm", "svm"]).filter((name) => rails[name]);

const facilitator = new x402Facilitator();
const resourceServer = new x402ResourceServer(facilitator);
for (const rail of Object.values(rails)) {
  facilitator.register(rail.network, rail.facilitatorScheme);
  resourceServer.register(rail.network, rail.serverScheme);
}

// Log every facilitator decision on stderr, to explain a failing test. Only the first
// paragraph of a message is kept: viem goes on with the call's arguments, the signature
// among them. A Solana settlement's transaction is its fee payer's signature: it is left out.
function firstParagraph(message) {
  return typeof message === "string" ? message.split("\n\n")[0] : message;
}
function summary(result) {
  const shown = { ...result };
  if (String(result.network).startsWith("solana:")) delete shown.transaction;
  return JSON.stringify({
    ...shown,
    invalidMessage: firstParagraph(result.invalidMessage),
    errorMessage: firstParagraph(result.errorMessage),
  });
}
facilitator.onAfterVerify(async ({ result }) => {
  console.error(`facilitator verify: ${summary(result)}`);
});
facilitator.onVerifyFailure(async ({ error }) => {
  console.error(`facilitator verify refused: ${firstParagraph(error.message)}`);
});
facilitator.onAfterSettle(async ({ result }) => {
  console.error(`facilitator settle: ${summary(result)}`);
});
facilitator.onSettleFailure(async ({ error }) => {
  console.error(`facilitator settle failed: ${firstParagraph(error.message)}`);
});

const paidBody = { resource: "paid", message: "served by the reference express middleware" };

const app = express();
app.use(
  paymentMiddleware(
    {
      "GET /paid": {
        accepts: offered.map((name) => rails[name].offer),
        description: "Interoperability test resource",
        mimeType: "application/json",
      },
    },
    resourceServer,
  ),
);
app.get("/paid", (_req, res) => {
  res.json(paidBody);
});

const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  process.stdout.write(
    JSON.stringify({
      port,
      url: `http://127.0.0.1:${port}`,
      ...rails.evm?.announcement,
      body: paidBody,
      ...(rails.svm && { svm: rails.svm.announcement }),
    }) + "\n",
  );
});

function shutdown() {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.stdin.on("end", shutdown);
process.stdin.on("close", shutdown);
process.stdin.resume();
