// Command tour walks through the five services of the SDK in one session: it browses the
// report catalog and buys a report under a spending cap, deploys a small site and fetches it
// back, looks up a product and runs an asynchronous review collection, prints the cheapest
// GPUs and buys a Pro key with USDC, and analyses a chart and pages through the hardest
// charts. At the end it prints what the session cost: the money spent and still reserved in
// the one budget shared by the report purchases and the key purchase, the product-data
// request units used, the requests made and the time taken.
//
// By default everything runs offline, against the in-memory fakes of each service (and an
// in-memory x402 facilitator and Solana node), with throwaway wallets funded in the fakes:
//
//	go run ./examples/tour
//
// A service switches to its live endpoint when its URL variable is set (REPORTSTORE_URL,
// HOSTING_URL, PRODUCTDATA_URL, GPUPRICE_URL, CHARTDIFF_URL), with its credential variables
// (HOSTING_TOKEN, PRODUCTDATA_KEY, GPUPRICE_API_KEY, CHARTDIFF_API_KEY). The tour never
// spends real money unless -live-payments is given together with a cap (-cap) and a wallet
// key: TOUR_EVM_KEY (hex) for the report purchase over x402, with REPORTSTORE_PAY_TO pinning
// the store's payee; TOUR_SOLANA_KEY (base58) for the key purchase on Solana, with
// SOLANA_RPC_URL and GPUPRICE_TREASURY, the service's treasury wallet. Both purchases draw on
// one budget of -cap (6.00 USDC by default offline, enough for a report and a Pro key).
//
//	go run ./examples/tour -only reportstore,chartdiff -v
//
// The exit status is 0 only when every step did what it says.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	var o options
	flag.StringVar(&o.only, "only", "", "comma-separated services to run (default all): "+strings.Join(serviceNames, ","))
	flag.BoolVar(&o.verbose, "v", false, "log the metadata of every request (method, host, path, status, duration)")
	flag.BoolVar(&o.livePayments, "live-payments", false, "let live services be paid for (needs a wallet key and -cap)")
	flag.StringVar(&o.cap, "cap", "", "most the session may spend in USDC, such as 6.00 (default "+defaultCap+" offline; required with -live-payments)")
	flag.Parse()
	o.logOutput = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := run(ctx, os.Stdout, o, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(2)
	}
	if !rep.OK() {
		os.Exit(1)
	}
}
