package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/usdc"
)

// defaultCap is the session's spending cap when -cap is not given.
const defaultCap = "6.00"

// step is one service's part of the tour.
type step struct {
	service string
	title   string
	run     func(*session, context.Context) (any, error)
}

// steps lists every step in the tour's order.
var steps = []step{
	{svcReportstore, "browse the report catalog, quote a report and buy it under the spending cap", (*session).reportstoreStep},
	{svcHosting, "deploy a small site and fetch it back", (*session).hostingStep},
	{svcProductdata, "look up a product and run a review collection to the end", (*session).productdataStep},
	{svcGPUPrice, "print the cheapest GPUs and buy a Pro key with USDC on Solana", (*session).gpupriceStep},
	{svcChartdiff, "analyse a chart and page through the hardest charts", (*session).chartdiffStep},
}

// run walks through the selected services, writing the session to out, and returns what each
// step did. Its error is for a tour that cannot start (bad flags, or an environment that
// lacks what they ask for), and then nothing was done; a failed step is recorded in the
// report instead, and the tour goes on with the next one.
func run(ctx context.Context, out io.Writer, o options, env func(string) string) (*report, error) {
	services, err := o.selected()
	if err != nil {
		return nil, err
	}
	capText := o.cap
	if capText == "" {
		if o.livePayments {
			return nil, errors.New("-live-payments needs -cap, the most the session may spend in USD")
		}
		capText = defaultCap
	}
	limit, err := cli.ParseCap("cap", capText)
	if err != nil {
		return nil, err
	}
	if err := o.checkEnvironment(services, env); err != nil {
		return nil, err
	}
	// The session's budget is kept in a file (x402/budgetfile), as an unattended program
	// would keep it: a payment is recorded there before it is signed, and its signature
	// before it is sent, so a crash loses no money from the books.
	dir, err := os.MkdirTemp("", "agentapis-tour-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "budget.db")
	store, err := budgetfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	budget, err := budget.New(limit, budget.WithStore(store))
	if err != nil {
		return nil, fmt.Errorf("-cap: %w", err)
	}
	s := &session{out: out, env: env, opts: o, cap: limit, budget: budget, logger: slog.New(slog.DiscardHandler)}
	if o.verbose && o.logOutput != nil {
		s.logger = slog.New(slog.NewTextHandler(o.logOutput, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	defer s.close()
	fmt.Fprintf(out, "the session's budget (%s) is kept in %s\n", usdc.Format(limit), path)

	start := time.Now()
	rep := &report{}
	for _, st := range steps {
		for _, name := range services {
			if name == st.service {
				s.runStep(ctx, rep, st.service, st.title, func(ctx context.Context) (any, error) { return st.run(s, ctx) })
			}
		}
	}
	rep.Duration = time.Since(start)
	spent, reserved, err := budget.Totals(ctx)
	if err != nil {
		return nil, err
	}
	rep.Spent, rep.Reserved, rep.Payments = spent, reserved, s.payments
	rep.Units, rep.Requests = s.units.Load(), s.requests.Load()

	failed := 0
	for _, st := range rep.Steps {
		if st.Err != nil {
			failed++
		}
	}
	fmt.Fprintf(out, "total: spent %s and %s still reserved of the %s cap, %d request units, %d requests, %s; %d of %d steps succeeded\n",
		usdc.Format(rep.Spent), usdc.Format(rep.Reserved), usdc.Format(limit),
		rep.Units, rep.Requests, rep.Duration.Round(time.Millisecond), len(rep.Steps)-failed, len(rep.Steps))
	for _, p := range rep.Payments {
		fmt.Fprintf(out, "  %s\n", p)
	}
	return rep, nil
}
