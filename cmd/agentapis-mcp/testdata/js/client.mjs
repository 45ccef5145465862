// Drives the agentapis-mcp server with the official TypeScript MCP client, for the Go test
// of cmd/agentapis-mcp (ts_test.go). The Go test starts it as
//
//	node client.mjs '<config JSON>'
//
// where the config says how to reach the server (stdio: the command, its arguments and
// environment; http: its URL) and which scenario to run. It writes one JSON report to stdout,
// which the Go test checks; anything else goes to stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";

const config = JSON.parse(process.argv[2]);
const report = { clientProtocol: LATEST_PROTOCOL_VERSION, calls: [], elicitations: [] };

// The elicitation handler declines until the scenario says to accept.
let elicitAnswer = "decline";
const client = new Client({ name: "agentapis-mcp-ts-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  report.elicitations.push(req.params.message);
  return elicitAnswer === "accept" ? { action: "accept", content: { approve: true } } : { action: elicitAnswer };
});

const transport = config.transport === "http"
  ? new StreamableHTTPClientTransport(new URL(config.url))
  : new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: "inherit" });
// Record the protocol version the server answers the initialize with.
const start = transport.start.bind(transport);
transport.start = async () => {
  const handle = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.result && msg.result.protocolVersion && !report.serverProtocol) report.serverProtocol = msg.result.protocolVersion;
    handle(msg, extra);
  };
  return start();
};
await client.connect(transport);

// call calls a tool and records its outcome.
async function call(name, args, label = name) {
  const started = Date.now();
  const entry = { label, tool: name };
  try {
    const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
    entry.isError = !!res.isError;
    entry.text = (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n").slice(0, 3000);
    entry.structured = res.structuredContent;
    entry.structuredIsObject = res.structuredContent !== null && typeof res.structuredContent === "object" && !Array.isArray(res.structuredContent);
  } catch (err) {
    entry.protocolError = String(err && err.message || err).slice(0, 3000);
  }
  entry.ms = Date.now() - started;
  report.calls.push(entry);
  return entry;
}

if (config.scenario === "status") {
  await call("budget_status", {});
} else {
  // Every tool, with its schemas compiled by a real JSON Schema validator.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const { tools } = await client.listTools();
  report.tools = [];
  for (const tool of tools) {
    const t = { name: tool.name };
    try {
      ajv.compile(tool.inputSchema);
      t.inputValid = true;
    } catch (err) {
      t.inputValid = false;
      t.inputError = String(err.message);
    }
    try {
      if (tool.outputSchema) ajv.compile(tool.outputSchema);
      t.outputValid = !!tool.outputSchema && tool.outputSchema.type === "object";
    } catch (err) {
      t.outputValid = false;
    }
    report.tools.push(t);
  }
  const demo = (tools.find((t) => t.name === "x402_fetch").description.match(/paid resource at (\S+) /) || [])[1];

  // The free tools.
  await call("budget_outstanding", {});
  await call("budget_reconcile", {});
  await call("reportstore_catalog", { limit: 3 });
  await call("reportstore_preview", { id: "macro-gdp" });
  await call("reportstore_quote", { id: "macro-gdp", format: "csv" });
  await call("hosting_create_repository", { name: "ts-site" });
  await call("hosting_repositories", {});
  await call("hosting_put_file", { repo: "ts-site", path: "index.html", content: "<h1>ts</h1>" });
  await call("hosting_commit", { repo: "ts-site", message: "first" });
  await call("hosting_deploy", { repo: "ts-site" });
  await call("hosting_files", { repo: "ts-site" });
  await call("hosting_read_file", { repo: "ts-site", path: "index.html" });
  await call("hosting_deploy_folder", { repo: "ts-site", files: [{ path: "index.html", content: "<h1>ts</h1>" }, { path: "a.txt", content: "a" }] });
  await call("productdata_product", { asin: "B0CVM8TXHP" });
  await call("productdata_call", { endpoint: "ProductRequest", domain: 1, params: "{\"ASIN\":\"B0CVM8TXHP\"}" });
  await call("productdata_refresh_product", { asin: "B0CVM8TXHP", max_age_hours: 1 });
  await call("productdata_collect_reviews", { asin: "B0CVM8TXHP", limit: 3 });
  await call("gpuprice_prices", { model: "H100" });
  await call("gpuprice_cheapest", { model: "H100" });
  await call("gpuprice_platforms", {});
  await call("gpuprice_futures", {});
  await call("gpuprice_order_book", { model: "H100" });
  await call("chartdiff_chart", { chart_id: 1 });
  await call("chartdiff_charts", { page_size: 5, sort: "ref_const", order: "desc" });
  await call("chartdiff_player", { uid: 1 });
  await call("chartdiff_author", { uid: 9, max_pages: 1 });
  await call("chartdiff_analysis", { chart_id: 4 });
  await call("chartdiff_keys", {});
  await call("chartdiff_create_key", { name: "ts", scopes: ["charts:read"] });

  // Paid tools: a report and the demo resource settle.
  await call("reportstore_report", { id: "macro-gdp", format: "csv" });
  await call("x402_fetch", { url: demo });
  await call("x402_fetch", { url: demo }, "fetch over the tool cap");
  await call("budget_status", {}, "status after the paid tools");
  // Above the approval threshold: the user declines (nothing is paid), then accepts.
  await call("gpuprice_buy_key", { plan: "pro" }, "buy key declined");
  await call("budget_status", {}, "status after the refusal");
  elicitAnswer = "accept";
  await call("gpuprice_buy_key", { plan: "pro" }, "buy key accepted");
  await call("gpuprice_history", { model: "H100", limit: 3 });
  // Over the total cap.
  await call("gpuprice_buy_key", { plan: "pro" }, "buy key over the cap");

  // Hostile arguments: tool errors, and the server keeps answering.
  const huge = "A".repeat(1 << 20);
  let deep = "x";
  for (let i = 0; i < 990; i++) deep = { a: deep };
  const hostile = [
    ["reportstore_preview", { id: 42 }],
    ["reportstore_preview", { id: huge }],
    ["reportstore_catalog", { limit: -1 }],
    ["reportstore_catalog", { limit: 1e300 }],
    ["x402_fetch", { url: "https://example.com/", max_amount: "-5" }],
    ["x402_fetch", { url: "https://example.com/", max_amount: "99999999999999999999999" }],
    ["chartdiff_chart", { chart_id: -1 }],
    ["chartdiff_chart", { chart_id: 1, extra: deep }],
    ["x402_fetch", { url: "https://169.254.169.254/latest/meta-data/" }],
  ];
  for (const [tool, args] of hostile) {
    await call(tool, args, "hostile " + tool);
    await call("budget_status", {}, "alive after hostile " + tool);
  }
  await call("budget_status", {}, "final status");
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
