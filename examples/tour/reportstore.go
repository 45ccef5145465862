package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
)

// tourReport is the report the tour buys, and reportCap the most it pays for one report, in
// USDC atomic units ($0.50).
const (
	tourReport = "macro-gdp"
	reportCap  = 500_000
)

// reportstoreResult is what the reportstore step did.
type reportstoreResult struct {
	// Products is the number of catalog entries.
	Products int
	// Quoted is the price the store quoted for the report, in USDC atomic units.
	Quoted *big.Int
	// Bought reports whether the report was bought (a live store without -live-payments is
	// only quoted).
	Bought bool
	// Rows is the number of rows of the bought report.
	Rows int
	// Transaction is the settlement's transaction hash from the receipt.
	Transaction string
}

// reportstoreStep browses the catalog, quotes a report and buys it under the session's cap,
// paying from the session's budget.
func (s *session) reportstoreStep(ctx context.Context) (any, error) {
	opts := []reportstore.Option{reportstore.WithHTTPClient(s.httpClient()), reportstore.WithLogger(s.logger)}
	key, payTo := s.env(cli.EnvEVMPrivateKey), s.env(cli.EnvReportstorePayTo)
	var store *reportstoretest.Server
	if s.live(reportstore.EnvURL) {
		opts = append(opts, reportstore.WithBaseURL(s.env(reportstore.EnvURL)))
	} else {
		store = reportstoretest.NewServer()
		s.closeLater(store.Close)
		opts = append(opts, reportstore.WithBaseURL(store.URL))
		payTo = store.PayTo()
		k, err := crypto.GenerateKey()
		if err != nil {
			return nil, err
		}
		key = hex.EncodeToString(crypto.FromECDSA(k))
	}
	// The environment was checked before the tour started: a live store is paid only with
	// -live-payments and a valid key.
	pay := store != nil || s.opts.livePayments
	// signed is the payment the payer is about to sign: where the money goes.
	var signed x402.Quote
	if pay {
		signer, err := evm.NewPrivateKeySigner(key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cli.EnvEVMPrivateKey, err)
		}
		policy := x402.Policy{MaxPerPayment: big.NewInt(reportCap), Approve: func(_ context.Context, q x402.Quote) error {
			signed = q
			return nil
		}}
		if payTo != "" {
			policy.PayTo = []string{payTo}
			opts = append(opts, reportstore.WithExpectedPayee(payTo))
		}
		scheme, err := evm.NewExact(signer)
		if err != nil {
			return nil, err
		}
		payer, err := x402.NewPayer(policy, []x402.Scheme{scheme}, x402.WithBudget(s.budget))
		if err != nil {
			return nil, err
		}
		if store != nil {
			// The throwaway wallet holds five times the cap: the cap, not the balance, bounds
			// what the tour may spend.
			store.Facilitator().Fund(signer.Address(), new(big.Int).Mul(s.cap, big.NewInt(5)))
		}
		opts = append(opts, reportstore.WithPayer(payer))
	}
	client, err := reportstore.New(opts...)
	if err != nil {
		return nil, err
	}

	res := &reportstoreResult{}
	catalog, err := client.Catalog(ctx)
	if err != nil {
		return res, fmt.Errorf("browsing the catalog: %w", err)
	}
	products := catalog.Products
	res.Products = len(products)
	if len(products) == 0 {
		return res, errors.New("the catalog lists no product")
	}
	first := products[0]
	s.printf("catalog: %d products, such as %q (%s) at %s", len(products), first.Title, first.ID, priceText(first))

	q, err := client.Quote(ctx, tourReport, reportstore.FormatCSV)
	if err != nil {
		return res, fmt.Errorf("quoting %s: %w", tourReport, err)
	}
	res.Quoted = q.Amount
	s.printf("quote for %s: %s to %s on %s (at most %s a report, %s for the session)", tourReport,
		usdc.Format(q.Amount), q.PayTo, q.Network, usdc.Format(big.NewInt(reportCap)), usdc.Format(s.cap))
	if q.Refusal != nil {
		return res, fmt.Errorf("the payer would refuse this quote: %w", q.Refusal)
	}
	if !pay {
		s.printf("not buying from a live store: that needs -live-payments, %s and -cap", cli.EnvEVMPrivateKey)
		return res, nil
	}

	report, err := client.Report(ctx, tourReport, reportstore.FormatCSV)
	if err != nil {
		return res, fmt.Errorf("buying %s: %w", tourReport, err)
	}
	if signed.Requirements.Amount != nil {
		s.paid(payment{Amount: signed.Requirements.Amount, To: signed.Requirements.PayTo, Rail: "x402 on " + signed.Network, For: "the report " + tourReport})
	}
	records, err := report.Records()
	if err != nil {
		return res, err
	}
	res.Bought, res.Rows = true, len(records)
	if len(records) == 0 {
		return res, fmt.Errorf("the report %s came back without rows", tourReport)
	}
	r := records[0]
	value := "(no data)"
	if r.Value != nil {
		value = fmt.Sprintf("%g", *r.Value)
	}
	s.printf("bought %s: %d rows of CSV, first %s %d %s = %s", tourReport, len(records), r.Economy, r.Year, r.Indicator, value)
	if report.Receipt == nil {
		return res, errors.New("the store sent no settlement receipt")
	}
	res.Transaction = report.Receipt.Transaction
	s.printf("receipt: transaction %s on %s, paid by %s", report.Receipt.Transaction, report.Receipt.Network, report.Receipt.Payer)
	return res, nil
}

// priceText writes a catalog entry's price.
func priceText(p reportstore.Product) string {
	switch {
	case p.Price != nil:
		return usdc.Format(p.Price)
	case p.PriceText != "":
		return p.PriceText
	default:
		return "no listed price"
	}
}
