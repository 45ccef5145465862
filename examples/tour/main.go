// Command tour walks through the five services of the SDK in one session: it browses the
// report catalog and buys a report under a spending cap, deploys a small site and fetches it
// back, looks up a product and runs an asynchronous review collection, prints the cheapest
// GPUs and buys a Pro key with USDC, and analyses a chart and pages through the hardest
// charts. At the end it prints what the session cost: the money spent and still reserved in
// the one budget shared by the report purchases and the key purchase, where each payment
// went, the product-data request units used, the requests made and the time taken.
//
// By default everything runs offline, against the in-memory fakes of each service (and an
// in-memory x402 facilitator and Solana node), with throwaway wallets funded in the fakes:
//
//	go run ./examples/tour
//
// A service switches to its live endpoint when its URL variable is set (REPORTSTORE_URL,
// HOSTING_URL, PRODUCTDATA_URL, GPUPRICE_URL, CHARTDIFF_URL), with its credential variables
// (HOSTING_TOKEN and PRODUCTDATA_ACCOUNT_KEY, required with their URLs; GPUPRICE_API_KEY,
// CHARTDIFF_API_KEY). The tour never spends real money unless -live-payments is given
// together with a cap (-cap) and the wallet of each live service it pays: EVM_PRIVATE_KEY
// (hex) for the report purchase over x402, with REPORTSTORE_PAY_TO pinning the store's
// payee; SOLANA_PRIVATE_KEY (base58) for the key purchase on Solana, with SOLANA_RPC_URL and
// GPUPRICE_TREASURY, the service's treasury wallet. Both purchases draw on one budget of -cap
// (6.00 USDC by default offline, enough for a report and a Pro key). -h lists them all.
//
// The budget is a file (x402/budgetfile), temporary and deleted at exit unless -budget names
// one to keep: a later run with the same -budget starts from what the earlier ones spent, and
// says so, under its own -cap.
//
//	go run ./examples/tour -only reportstore -budget tour-budget.db
//
//	go run ./examples/tour -only reportstore,chartdiff -v
//
// The exit status is 0 only when every step did what it says, 1 when a step failed, and 2
// when the command line or the environment is refused (then nothing is done).
package main

import (
	"context"
	"io"
	"strings"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
)

// about is what -h says the program does.
const about = `Walks through the five services in one session: buys a report under a spending cap,
deploys a site, runs a product-review collection, buys a GPU-price key with USDC on Solana
and pages through chart difficulties, then prints what the session cost and where each
payment went. Offline against in-memory fakes by default. A service whose URL variable is
set is called live; a live service is paid only with -live-payments, -cap and its wallet.`

func main() { cli.Main(realMain) }

// realMain runs the tour with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("tour", about,
		cli.Var{Name: reportstore.EnvURL, Use: "the report store (unset: its fake)"},
		cli.Var{Name: cli.EnvEVMPrivateKey, Use: "hex private key of the wallet paying the live store over x402, with -live-payments"},
		cli.Var{Name: cli.EnvReportstorePayTo, Use: "the live store's payee: no other is paid (optional)"},
		cli.Var{Name: hosting.EnvURL, Use: "the hosting service (unset: its fake)"},
		cli.Var{Name: hosting.EnvToken, Use: "its API token, required with " + hosting.EnvURL},
		cli.Var{Name: productdata.EnvURL, Use: "the product-data service (unset: its fake)"},
		cli.Var{Name: productdata.EnvAccountKey, Use: "its account key, required with " + productdata.EnvURL},
		cli.Var{Name: gpuprice.EnvURL, Use: "the GPU price service (unset: its fake)"},
		cli.Var{Name: gpuprice.EnvAPIKey, Use: "its API key (optional: the free endpoints the tour reads need none)"},
		cli.Var{Name: cli.EnvSolanaPrivateKey, Use: "base58 private key of the wallet buying the live key, with -live-payments"},
		cli.Var{Name: gpuprice.EnvRPCURL, Use: "the Solana node the live key purchase is sent to, with -live-payments"},
		cli.Var{Name: cli.EnvGPUPriceTreasury, Use: "the live service's treasury wallet, paid for the key, with -live-payments"},
		cli.Var{Name: chartdiff.EnvURL, Use: "the chart difficulty service (unset: its fake)"},
		cli.Var{Name: chartdiff.EnvAPIKey, Use: "its API key (optional: anonymous limits without it)"})
	var o options
	p.Flags.StringVar(&o.only, "only", "", "comma-separated services to run (default all): "+strings.Join(serviceNames, ","))
	p.Flags.BoolVar(&o.verbose, "v", false, "log the metadata of every request (method, host, path, status, duration)")
	p.Flags.BoolVar(&o.livePayments, "live-payments", false, "let live services be paid for (needs -cap and the wallet of each)")
	p.Flags.StringVar(&o.cap, "cap", "", "most the session may spend in USD, such as 6.00 (default "+defaultCap+" offline; required with -live-payments)")
	p.Flags.StringVar(&o.budgetPath, "budget", "", "keep the session's budget in this file, so that the next run remembers what this one spent (default: a temporary file, deleted at exit)")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	o.logOutput = stderr
	rep, err := run(ctx, stdout, o, env)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	if !rep.OK() {
		return cli.ExitFailed
	}
	return cli.ExitOK
}
