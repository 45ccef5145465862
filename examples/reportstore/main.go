// Command reportstore buys a macroeconomic report with x402: it quotes the report, buys it as
// CSV under a $0.50 cap, and prints a few rows, the settlement receipt and the total spent.
//
// It runs offline against the in-memory fake store by default, with a throwaway wallet funded
// in the fake's ledger:
//
//	go run ./examples/reportstore
//
// With REPORTSTORE_URL set it asks that store instead, and only quotes the report. It buys it,
// spending real money (at most -cap), only with -live-payments and the hex private key of a
// wallet holding USDC on Base in EVM_PRIVATE_KEY. REPORTSTORE_PAY_TO, when set, is the only
// payee the client agrees to pay:
//
//	REPORTSTORE_URL=https://store.example EVM_PRIVATE_KEY=... REPORTSTORE_PAY_TO=0x... \
//		go run ./examples/reportstore -report macro-inflation -live-payments -cap 0.50
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
)

// about is what -h says the program does.
const about = `Quotes a report of the macroeconomic report store, buys it as CSV under a spending cap,
and prints a few rows, the receipt and what was spent. Offline against the in-memory fake
store by default, paid from a throwaway wallet. With ` + reportstore.EnvURL + ` set it only quotes
that store's report; -live-payments, with ` + cli.EnvEVMPrivateKey + `, buys it with real USDC.`

// settings say which store to buy from, whether to pay it, with which wallet, what and under
// which cap.
type settings struct {
	// baseURL is the store; "" buys from the in-memory fake.
	baseURL string
	// pay lets the store at baseURL be paid (the fake always is).
	pay bool
	// key is the payer's hex private key; "" pays the fake from a throwaway key.
	key string
	// payTo, when set, is the only payee the client agrees to pay.
	payTo    string
	reportID string
	// cap is the most to pay, in USDC atomic units.
	cap  *big.Int
	rows int
}

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("reportstore", about,
		cli.Var{Name: reportstore.EnvURL, Use: "the store's address, {base_url} (unset: the in-memory fake)"},
		cli.Var{Name: cli.EnvEVMPrivateKey, Use: "hex private key of the wallet paying USDC on Base, required with -live-payments"},
		cli.Var{Name: cli.EnvReportstorePayTo, Use: "the store's payee address: no other is paid (optional)"})
	reportID := p.Flags.String("report", "macro-gdp", "id of the report to buy")
	capText := p.Flags.String("cap", "0.50", "most to pay for the report, in USD")
	rows := p.Flags.Int("rows", 5, "how many rows to print")
	live := p.Flags.Bool("live-payments", false, "buy from the store at "+reportstore.EnvURL+" (needs "+cli.EnvEVMPrivateKey+")")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	s, err := configure(*reportID, *capText, *rows, *live, env)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	return p.Exit(stderr, run(ctx, stdout, s))
}

// configure checks the flags against each other and the environment.
func configure(reportID, capText string, rows int, live bool, env func(string) string) (settings, error) {
	limit, err := cli.ParseCap("cap", capText)
	if err != nil {
		return settings{}, err
	}
	s := settings{reportID: reportID, cap: limit, rows: rows, pay: live}
	switch {
	case strings.TrimSpace(reportID) == "":
		return s, errors.New("-report: give the id of a report")
	case rows < 0:
		return s, fmt.Errorf("-rows %d: a count of rows cannot be negative", rows)
	}
	if s.baseURL = env(reportstore.EnvURL); s.baseURL != "" {
		s.payTo = env(cli.EnvReportstorePayTo)
	}
	if !live {
		return s, nil
	}
	if s.baseURL == "" {
		return s, fmt.Errorf("-live-payments buys from the store at %s: set it (the in-memory fake needs no -live-payments)", reportstore.EnvURL)
	}
	if s.key = env(cli.EnvEVMPrivateKey); s.key == "" {
		return s, fmt.Errorf("-live-payments needs %s, the hex private key of a wallet holding USDC on Base", cli.EnvEVMPrivateKey)
	}
	if _, err := evm.NewPrivateKeySigner(s.key); err != nil {
		return s, fmt.Errorf("%s: %w", cli.EnvEVMPrivateKey, err)
	}
	return s, nil
}

// run quotes the report and buys it when allowed, writing what happens to out. It never
// prints the key.
func run(ctx context.Context, out io.Writer, s settings) error {
	var store *reportstoretest.Server
	if s.baseURL == "" {
		store = reportstoretest.NewServer()
		defer store.Close()
		s.baseURL, s.payTo, s.pay = store.URL, store.PayTo(), true
		if s.key == "" {
			key, err := crypto.GenerateKey()
			if err != nil {
				return err
			}
			s.key = hex.EncodeToString(crypto.FromECDSA(key))
		}
		fmt.Fprintf(out, "offline: using the in-memory fake store (set %s for a live one)\n", reportstore.EnvURL)
	}

	opts := []reportstore.Option{reportstore.WithBaseURL(s.baseURL)}
	if s.payTo != "" {
		opts = append(opts, reportstore.WithExpectedPayee(s.payTo))
	}
	var payer *x402.Payer
	if s.pay {
		signer, err := evm.NewPrivateKeySigner(s.key)
		if err != nil {
			return err
		}
		policy := x402.Policy{MaxPerPayment: s.cap, MaxTotal: s.cap}
		if s.payTo != "" {
			policy.PayTo = []string{s.payTo}
		}
		scheme, err := evm.NewExact(signer)
		if err != nil {
			return err
		}
		if payer, err = x402.NewPayer(policy, []x402.Scheme{scheme}); err != nil {
			return err
		}
		if store != nil {
			store.Facilitator().Fund(signer.Address(), s.cap)
		}
		opts = append(opts, reportstore.WithPayer(payer))
	}
	client, err := reportstore.New(opts...)
	if err != nil {
		return err
	}

	// 1. The quote: the unpaid request, whose 402 states the live price. Nothing is paid.
	q, err := client.Quote(ctx, s.reportID, reportstore.FormatCSV)
	if err != nil {
		return fmt.Errorf("quoting %s: %w", s.reportID, err)
	}
	fmt.Fprintf(out, "quote for %s: %s to %s on %s (cap %s)\n", s.reportID, usdc.Format(q.Amount), q.PayTo, q.Network, usdc.Format(s.cap))
	if !s.pay {
		fmt.Fprintf(out, "not buying from a live store: give -live-payments, with %s, to buy it\n", cli.EnvEVMPrivateKey)
		return nil
	}

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
	spent, err := payer.Spent(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "total spent: %s of the %s cap\n", usdc.Format(spent), usdc.Format(s.cap))
	return nil
}
