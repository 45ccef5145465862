// A resource server built from the reference x402 packages: the @x402/express payment
// middleware protects GET /paid, and verification and settlement go to an in-process
// facilitator made of @x402/core's x402Facilitator and the reference @x402/evm exact
// facilitator scheme, which settles on a local anvil node (chain id 8453, as Base) holding
// Circle's USDC at Base's address (set up by usdc.mjs). An unlocked anvil account sends the
// settlement transactions and pays their gas.
//
// Usage: node server.mjs '<json config>'
//   config: {
//     "rpcUrl": "http://127.0.0.1:8545",  the anvil node (required)
//     "payTo": "0x…",                     recipient of payments (required)
//     "amount": "10000",                  price in atomic units (required)
//     "fund": {"0x…": "1000000"},         USDC minted to each address before serving
//     "maxTimeoutSeconds": 60
//   }
//
// It listens on 127.0.0.1 on a free port and prints one JSON line on stdout:
//   {"port": 12345, "url": "http://127.0.0.1:12345", "network": …, "asset": …, "payTo": …,
//    "amount": …, "body": …, "facilitator": "0x…"}
// Every facilitator decision is logged on stderr, without signatures. It exits when stdin closes or on
// SIGTERM/SIGINT.

import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { createTestClient, createWalletClient, defineChain, getAddress, http, publicActions, walletActions } from "viem";

import { USDC_BASE, USDC_NAME, USDC_VERSION, setUpUSDC } from "./usdc.mjs";

const config = JSON.parse(process.argv[2] ?? "{}");
if (!config.rpcUrl || !config.payTo || !config.amount) {
  console.error(
    'usage: node server.mjs \'{"rpcUrl":"http://127.0.0.1:8545","payTo":"0x…","amount":"10000","fund":{"0x…":"1000000"}}\'',
  );
  process.exit(2);
}

const chainId = 8453;
const network = `eip155:${chainId}`;
const payTo = getAddress(config.payTo);
const amount = String(config.amount);
const maxTimeoutSeconds = config.maxTimeoutSeconds ?? 60;

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
const facilitator = new x402Facilitator().register(network, new ExactEvmFacilitatorScheme(facilitatorSigner));

// Log every facilitator decision on stderr, to explain a failing test. Only the first
// paragraph of a message is kept: viem goes on with the call's arguments, the signature
// among them.
function firstParagraph(message) {
  return typeof message === "string" ? message.split("\n\n")[0] : message;
}
function summary(result) {
  return JSON.stringify({
    ...result,
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

const resourceServer = new x402ResourceServer(facilitator).register(network, new ExactEvmServerScheme());

const paidBody = { resource: "paid", message: "served by the reference express middleware" };

const app = express();
app.use(
  paymentMiddleware(
    {
      "GET /paid": {
        accepts: {
          scheme: "exact",
          network,
          payTo,
          price: { amount, asset: USDC_BASE, extra: { name: USDC_NAME, version: USDC_VERSION } },
          maxTimeoutSeconds,
        },
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
      network,
      asset: USDC_BASE,
      payTo,
      amount,
      body: paidBody,
      facilitator: facilitatorAddress,
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
