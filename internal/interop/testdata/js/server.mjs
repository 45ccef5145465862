// A resource server built from the reference x402 packages: the @x402/express
// payment middleware protects GET /paid, and verification and settlement go to
// an offline facilitator made of the reference @x402/evm ExactEvmScheme
// facilitator driving the in-memory chain of chain.mjs.
//
// Usage: node server.mjs '<json config>'
//   config: {
//     "payTo": "0x…",                 recipient of payments (required)
//     "amount": "10000",              price in atomic units (required)
//     "fund": {"0x…": "1000000"},     initial token balances
//     "maxTimeoutSeconds": 60,
//     "network": "eip155:84532", "asset": "0x…", "name": "USDC", "version": "2"
//   }
//
// It listens on 127.0.0.1 on a free port and prints one JSON line on stdout:
//   {"port": 12345, "url": "http://127.0.0.1:12345", "network": …, "asset": …, "payTo": …, "amount": …}
// Free endpoints for the test:
//   GET /chain/transfers            transfers executed on the in-memory chain
//   GET /chain/balance/:address     token balance of an address
// It exits when stdin closes or on SIGTERM/SIGINT.

import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { getAddress } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";

import { InMemoryChain } from "./chain.mjs";

const config = JSON.parse(process.argv[2] ?? "{}");
if (!config.payTo || !config.amount) {
  console.error('usage: node server.mjs \'{"payTo":"0x…","amount":"10000","fund":{"0x…":"1000000"}}\'');
  process.exit(2);
}

const network = config.network ?? "eip155:84532";
const asset = getAddress(config.asset ?? "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
const tokenName = config.name ?? "USDC";
const tokenVersion = config.version ?? "2";
const payTo = getAddress(config.payTo);
const amount = String(config.amount);
const maxTimeoutSeconds = config.maxTimeoutSeconds ?? 60;
const chainId = Number(network.split(":")[1]);

const chain = new InMemoryChain({ address: asset, name: tokenName, version: tokenVersion, chainId });
for (const [address, balance] of Object.entries(config.fund ?? {})) {
  chain.fund(address, balance);
}

// The facilitator's own account only identifies who submitted a transfer.
const facilitatorAccount = privateKeyToAccount(generatePrivateKey());
const facilitator = new x402Facilitator().register(
  network,
  new ExactEvmFacilitatorScheme(chain.facilitatorSigner(facilitatorAccount.address)),
);

// Log every facilitator decision on stderr, to explain a failing test.
facilitator.onAfterVerify(async ({ result }) => {
  console.error(`facilitator verify: ${JSON.stringify(result)}`);
});
facilitator.onVerifyFailure(async ({ error }) => {
  console.error(`facilitator verify refused: ${error.message}`);
});
facilitator.onAfterSettle(async ({ result }) => {
  console.error(`facilitator settle: ${JSON.stringify(result)}`);
});
facilitator.onSettleFailure(async ({ error }) => {
  console.error(`facilitator settle failed: ${error.message}`);
});

const resourceServer = new x402ResourceServer(facilitator).register(network, new ExactEvmServerScheme());

const paidBody = { resource: "paid", message: "served by the reference express middleware" };

const app = express();
app.get("/chain/transfers", (_req, res) => {
  res.json(chain.transfers);
});
app.get("/chain/balance/:address", (req, res) => {
  res.json({ address: getAddress(req.params.address), balance: chain.balanceOf(req.params.address).toString() });
});
app.use(
  paymentMiddleware(
    {
      "GET /paid": {
        accepts: {
          scheme: "exact",
          network,
          payTo,
          price: { amount, asset, extra: { name: tokenName, version: tokenVersion } },
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
    JSON.stringify({ port, url: `http://127.0.0.1:${port}`, network, asset, payTo, amount, body: paidBody }) + "\n",
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
