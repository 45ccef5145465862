// Command reportstore buys a macroeconomic report with x402: it quotes the report, buys it as
// CSV under a 0.50 USDC cap, and prints a few rows, the settlement receipt and the total
// spent.
//
// It runs offline against the in-memory fake store by default, with a throwaway wallet funded
// in the fake's ledger:
//
//	go run ./examples/reportstore
//
// With REPORTSTORE_URL and REPORTSTORE_WALLET_KEY (a hex private key of a wallet holding USDC
// on Base) set, it buys from that store instead and spends real money, at most the cap.
// REPORTSTORE_PAY_TO, when set, is the only payee the client agrees to pay:
//
//	REPORTSTORE_URL=https://store.example REPORTSTORE_WALLET_KEY=... REPORTSTORE_PAY_TO=0x... \
//		go run ./examples/reportstore -report macro-inflation
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
)

// Environment variables of the live mode, besides reportstore.EnvURL.
const (
	envWalletKey = "REPORTSTORE_WALLET_KEY"
	envPayTo     = "REPORTSTORE_PAY_TO"
)

// settings say which store to buy from, with which wallet, what and under which cap.
type settings struct {
	baseURL  string
	key      string
	payTo    string
	reportID string
	cap      string
	rows     int
}

func main() {
	reportID := flag.String("report", "macro-gdp", "id of the report to buy")
	limit := flag.String("cap", "0.50", "most to pay for the report, in USD")
	rows := flag.Int("rows", 5, "how many rows to print")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s := settings{
		baseURL:  os.Getenv(reportstore.EnvURL),
		key:      os.Getenv(envWalletKey),
		payTo:    os.Getenv(envPayTo),
		reportID: *reportID,
		cap:      *limit,
		rows:     *rows,
	}
	if err := run(ctx, os.Stdout, s); err != nil {
		log.Fatal(err)
	}
}

// run quotes and buys the report, writing what happens to out. It never prints the key.
func run(ctx context.Context, out io.Writer, s settings) error {
	capPrice, err := reportstore.ParsePrice(s.cap)
	if err != nil {
		return fmt.Errorf("-cap: %w", err)
	}
	var store *reportstoretest.Server
	if s.baseURL == "" || s.key == "" {
		store = reportstoretest.NewServer()
		defer store.Close()
		s.baseURL, s.payTo = store.URL, reportstoretest.DefaultPayTo
		if s.key == "" {
			key, err := crypto.GenerateKey()
			if err != nil {
				return err
			}
			s.key = hex.EncodeToString(crypto.FromECDSA(key))
		}
		fmt.Fprintf(out, "offline: using the in-memory fake store (set %s and %s for a live one)\n", reportstore.EnvURL, envWalletKey)
	}

	signer, err := x402.NewPrivateKeySigner(s.key)
	if err != nil {
		return err
	}
	policy := x402.Policy{MaxPerPayment: capPrice.Big(), MaxTotal: capPrice.Big()}
	opts := []reportstore.Option{reportstore.WithBaseURL(s.baseURL)}
	if s.payTo != "" {
		policy.PayTo = []string{s.payTo}
		opts = append(opts, reportstore.WithExpectedPayee(s.payTo))
	}
	payer, err := x402.NewPayer(signer, policy)
	if err != nil {
		return err
	}
	if store != nil {
		store.Facilitator().Fund(payer.Address(), capPrice.Big())
	}
	client, err := reportstore.New(append(opts, reportstore.WithPayer(payer))...)
	if err != nil {
		return err
	}

	// 1. The quote: the unpaid request, whose 402 states the live price. Nothing is paid.
	q, err := client.Quote(ctx, s.reportID, reportstore.FormatCSV)
	if err != nil {
		return fmt.Errorf("quoting %s: %w", s.reportID, err)
	}
	fmt.Fprintf(out, "quote for %s: %s to %s on %s (cap %s)\n", s.reportID, x402.FormatUSDC(q.Amount), q.PayTo, q.Network,
		x402.FormatUSDC(policy.MaxPerPayment))

	// 2. The purchase. The payer pays the price of this request's own 402, which may differ
	// from the quote, and refuses anything above the cap before signing.
	report, err := client.Report(ctx, s.reportID, reportstore.FormatCSV)
	if err != nil {
		return fmt.Errorf("buying %s: %w", s.reportID, err)
	}
	records, err := report.Records()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "bought %s: %d bytes of %s, %d rows\n", s.reportID, len(report.Body), report.ContentType, len(records))
	for _, r := range records[:min(s.rows, len(records))] {
		v := "(no data)"
		if r.Value != nil {
			v = strconv.FormatFloat(*r.Value, 'f', -1, 64)
		}
		fmt.Fprintf(out, "  %s %d %s %s\n", r.Economy, r.Year, r.Indicator, v)
	}
	if rc := report.Receipt; rc != nil {
		fmt.Fprintf(out, "receipt: success %t, transaction %s on %s, payer %s\n", rc.Success, rc.Transaction, rc.Network, rc.Payer)
	} else {
		fmt.Fprintln(out, "receipt: none sent by the store")
	}
	fmt.Fprintf(out, "total spent: %s\n", x402.FormatUSDC(payer.Spent()))
	return nil
}
