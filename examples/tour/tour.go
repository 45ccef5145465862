package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
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
	budget, where, closeBudget, err := openBudget(o.budgetPath, limit)
	if err != nil {
		return nil, err
	}
	defer closeBudget()
	spentBefore, reservedBefore, err := budget.Totals(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{out: out, env: env, opts: o, cap: limit, budget: budget, logger: slog.New(slog.DiscardHandler)}
	if o.verbose && o.logOutput != nil {
		s.logger = slog.New(slog.NewTextHandler(o.logOutput, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	defer s.close()
	if o.budgetPath == "" {
		fmt.Fprintf(out, "the session's budget (%s) is in a temporary file, deleted at exit (-budget path keeps it for the next run)\n",
			usdc.Format(limit))
	} else {
		fmt.Fprintf(out, "the session's budget (%s) is kept in %s: %s spent and %s still reserved by earlier runs\n",
			usdc.Format(limit), where, usdc.Format(spentBefore), usdc.Format(reservedBefore))
	}

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
	rep.Spent, rep.Reserved, rep.SpentBefore, rep.Payments = spent, reserved, spentBefore, s.payments
	rep.Units, rep.Requests = s.units.Load(), s.requests.Load()

	failed := 0
	for _, st := range rep.Steps {
		if st.Err != nil {
			failed++
		}
	}
	before := ""
	if spentBefore.Sign() > 0 {
		before = " (" + usdc.Format(spentBefore) + " of it by earlier runs)"
	}
	fmt.Fprintf(out, "total: spent %s%s and %s still reserved of the %s cap, %d request units, %d requests, %s; %d of %d steps succeeded\n",
		usdc.Format(rep.Spent), before, usdc.Format(rep.Reserved), usdc.Format(limit),
		rep.Units, rep.Requests, rep.Duration.Round(time.Millisecond), len(rep.Steps)-failed, len(rep.Steps))
	for _, p := range rep.Payments {
		fmt.Fprintf(out, "  %s\n", p)
	}
	return rep, nil
}

// openBudget returns the session's budget of limit, kept in a file (x402/budgetfile) as an
// unattended program would keep it: a payment is recorded there before it is signed, and its
// signature before it is sent, so that a crash loses no money from the books. With a path (the
// -budget flag) the file is kept, and a later run remembers what this one spent; the run's
// limit replaces the file's (budget.WithLimitChange), so that -cap sets it, and a cap below
// what earlier runs spent refuses every payment. Without one, the file is a temporary one,
// removed by the returned close. It also returns where the file is.
func openBudget(path string, limit *big.Int) (*budget.Budget, string, func(), error) {
	opts := []budget.Option{budget.WithLimitChange()}
	remove := func() {}
	if path == "" {
		dir, err := os.MkdirTemp("", "agentapis-tour-")
		if err != nil {
			return nil, "", nil, err
		}
		path, opts, remove = filepath.Join(dir, "budget.db"), nil, func() { os.RemoveAll(dir) }
	}
	store, err := budgetfile.Open(path)
	if err != nil {
		remove()
		return nil, "", nil, fmt.Errorf("-budget: %w", err)
	}
	closeAll := func() {
		store.Close()
		remove()
	}
	b, err := budget.New(limit, append(opts, budget.WithStore(store))...)
	if err != nil {
		closeAll()
		return nil, "", nil, fmt.Errorf("-cap: %w", err)
	}
	return b, path, closeAll, nil
}
