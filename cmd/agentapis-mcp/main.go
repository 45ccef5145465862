// Command agentapis-mcp is a Model Context Protocol server for the SDK: the five services
// (reportstore, hosting, productdata, gpuprice, chartdiff) and any x402 resource as tools,
// every payment under one durable budget and one spending policy. It speaks MCP over stdio by
// default, or streamable HTTP with -http.
//
//	go run ./cmd/agentapis-mcp -offline          # the SDK's fakes and funded throwaway wallets
//	go install ./cmd/agentapis-mcp
//
// Service addresses, credentials and wallet keys come from the environment only (see -h);
// the spending policy from flags or a JSON file (-policy). Nothing but JSON-RPC is written
// to stdout; the log goes to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentapis/sdk/internal/mcpserver"
)

// version is the server's version in the MCP handshake.
const version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stderr))
}

// envHelp lists the environment variables the server reads.
const envHelp = `
Environment (credentials and keys are read from here only):
  REPORTSTORE_URL, REPORTSTORE_PAY_TO   the report store and its only payee
  EVM_PRIVATE_KEY                       hex key of the wallet paying x402 (reportstore, x402_fetch)
  HOSTING_URL, HOSTING_TOKEN            the hosting service
  PRODUCTDATA_URL, PRODUCTDATA_ACCOUNT_KEY
  GPUPRICE_URL, GPUPRICE_API_KEY        the GPU price index
  SOLANA_RPC_URL, SOLANA_PRIVATE_KEY, GPUPRICE_TREASURY   buying gpuprice keys with USDC on Solana
  CHARTDIFF_URL, CHARTDIFF_API_KEY, CHARTDIFF_ACCOUNT_TOKEN
  AGENTAPIS_MCP_BUDGET_DSN              a PostgreSQL budget shared by several servers
A service's tools are listed when its URL is set (all of them with -offline).
`

// run runs the server with the command line args and the environment env, logging to
// stderr, and returns the exit status.
func run(ctx context.Context, args []string, env func(string) string, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentapis-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: agentapis-mcp [flags]\n\nAn MCP server for the agentapis SDK, over stdio (default) or streamable HTTP (-http).\n\nFlags:")
		fs.PrintDefaults()
		fmt.Fprint(stderr, envHelp)
	}
	var (
		o          mcpserver.Options
		flagPolicy mcpserver.Policy
		policyFile string
		httpAddr   string
		remote     bool
		verbose    bool
	)
	fs.BoolVar(&o.Offline, "offline", false, "start the SDK's in-memory fakes and funded throwaway wallets, with a budget in a temporary file")
	fs.StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (such as 127.0.0.1:8402) instead of stdio")
	fs.BoolVar(&remote, "http-allow-remote", false, "let -http listen on a non-loopback address (anyone who reaches it spends the budget)")
	fs.StringVar(&policyFile, "policy", "", "a JSON file with the spending policy; flags override it")
	fs.StringVar(&o.BudgetPath, "budget", "", "the budget file (default agentapis-mcp/budget.db in the user's config folder)")
	fs.StringVar(&o.BudgetName, "budget-name", "", "the budget's name in PostgreSQL (with "+mcpserver.EnvBudgetDSN+")")
	fs.StringVar(&flagPolicy.MaxPerPayment, "max-per-payment", "", "the most one payment may be, in dollars (default "+mcpserver.DefaultPolicy.MaxPerPayment+")")
	fs.StringVar(&flagPolicy.MaxTotal, "max-total", "", "the most the budget may spend in all, in dollars (default "+mcpserver.DefaultPolicy.MaxTotal+")")
	fs.StringVar(&flagPolicy.PerPayee, "per-payee", "", "the most any one payee may receive, in dollars")
	fs.StringVar(&flagPolicy.ApproveAbove, "approve-above", "", "ask the user (MCP elicitation) before any payment above this, in dollars; refused when the client cannot ask")
	var window mcpserver.WindowPolicy
	fs.StringVar(&window.Length, "window", "", "a rolling window's length, such as 24h, capped by -window-max and -window-payments")
	fs.StringVar(&window.MaxAmount, "window-max", "", "the most the rolling window may spend, in dollars")
	fs.IntVar(&window.MaxPayments, "window-payments", 0, "the most payments the rolling window may make")
	fs.Func("allow-payee", "an address that may be paid (repeat or comma-separate; none given: any)", func(v string) error {
		flagPolicy.AllowedPayees = append(flagPolicy.AllowedPayees, splitList(v)...)
		return nil
	})
	fs.Func("allow-host", "a host (or host:port) that may be paid and fetched, private addresses included (repeat or comma-separate; none given: any public host)", func(v string) error {
		flagPolicy.AllowedHosts = append(flagPolicy.AllowedHosts, splitList(v)...)
		return nil
	})
	fs.Func("tool-cap", "tool=amount: the most the tool may pay in all, kept beside the budget, such as reportstore_report=2.00 (repeat)", func(v string) error {
		tool, amount, ok := strings.Cut(v, "=")
		if !ok || tool == "" || amount == "" {
			return fmt.Errorf("want tool=amount, such as x402_fetch=0.10")
		}
		if flagPolicy.ToolCaps == nil {
			flagPolicy.ToolCaps = map[string]string{}
		}
		flagPolicy.ToolCaps[tool] = amount
		return nil
	})
	fs.BoolVar(&o.AllowDestructive, "allow-destructive", false, "register the tools that delete or replace (files, API keys)")
	fs.StringVar(&o.DeployRoot, "deploy-root", "", "a folder whose subfolders hosting_deploy_folder may publish (dir)")
	fs.BoolVar(&o.Fetch.AllowHTTP, "fetch-allow-http", false, "let x402_fetch fetch http URLs (default https only)")
	fs.BoolVar(&o.Fetch.AllowPrivate, "fetch-allow-private", false, "let x402_fetch reach loopback, private, link-local and cloud metadata addresses")
	fs.IntVar(&o.Fetch.MaxBytes, "fetch-max-bytes", mcpserver.DefaultFetchMaxBytes, "the most of a body x402_fetch and reportstore_report return")
	fs.BoolVar(&verbose, "v", false, "log every request's metadata to stderr")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentapis-mcp: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if window.Length != "" || window.MaxAmount != "" || window.MaxPayments != 0 {
		flagPolicy.Window = &window
	}
	if policyFile != "" {
		p, err := mcpserver.LoadPolicy(policyFile)
		if err != nil {
			fmt.Fprintln(stderr, "agentapis-mcp:", err)
			return 2
		}
		o.Policy = p
	}
	o.Policy = o.Policy.Merge(flagPolicy)
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	o.Env, o.Version = env, version
	o.BudgetDSN = env(mcpserver.EnvBudgetDSN)

	var ln net.Listener
	if httpAddr != "" {
		host, _, err := net.SplitHostPort(httpAddr)
		if err != nil {
			fmt.Fprintln(stderr, "agentapis-mcp: -http:", err)
			return 2
		}
		if ip := net.ParseIP(host); !remote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			fmt.Fprintf(stderr, "agentapis-mcp: -http %s is not a loopback address: anyone reaching it could spend the budget (add -http-allow-remote to mean it)\n", httpAddr)
			return 2
		}
		if ln, err = net.Listen("tcp", httpAddr); err != nil {
			fmt.Fprintln(stderr, "agentapis-mcp:", err)
			return 1
		}
	}
	srv, err := mcpserver.New(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "agentapis-mcp:", err)
		return 1
	}
	defer srv.Close()
	if ln != nil {
		o.Logger.Info("serving MCP over streamable HTTP", "address", "http://"+ln.Addr().String()+"/", "tools", len(srv.Tools()))
		err = srv.ServeHTTP(ctx, ln)
	} else {
		err = srv.RunStdio(ctx)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "agentapis-mcp:", err)
		return 1
	}
	return 0
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
