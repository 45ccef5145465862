package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// The services, in the order the tour visits them.
const (
	svcReportstore = "reportstore"
	svcHosting     = "hosting"
	svcProductdata = "productdata"
	svcGPUPrice    = "gpuprice"
	svcChartdiff   = "chartdiff"
)

// serviceNames lists the services in the tour's order.
var serviceNames = []string{svcReportstore, svcHosting, svcProductdata, svcGPUPrice, svcChartdiff}

// options are the command line of the tour.
type options struct {
	only         string
	verbose      bool
	livePayments bool
	cap          string
	// budgetPath is the file that keeps the session's budget (-budget); "" for a temporary one.
	budgetPath string
	// logOutput receives the request metadata logged with -v.
	logOutput io.Writer
}

// selected returns the services -only names, in the tour's order, refusing unknown ones.
func (o options) selected() ([]string, error) {
	if strings.TrimSpace(o.only) == "" {
		return serviceNames, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(o.only, ",") {
		name = strings.TrimSpace(strings.ToLower(name))
		if !slices.Contains(serviceNames, name) {
			return nil, fmt.Errorf("-only: unknown service %q (known: %s)", name, strings.Join(serviceNames, ", "))
		}
		want[name] = true
	}
	var out []string
	for _, name := range serviceNames {
		if want[name] {
			out = append(out, name)
		}
	}
	return out, nil
}

// checkEnvironment refuses a session that could not do what it says with the environment env:
// a live service without the credential it requires, or -live-payments when none of the
// services selected takes payments live, or without the wallet and settings that pay each
// live one.
func (o options) checkEnvironment(services []string, env func(string) string) error {
	var errs []error
	paying := false
	for _, svc := range services {
		switch svc {
		case svcHosting:
			_, err := cli.Live(env, hosting.EnvURL, hosting.EnvToken)
			errs = append(errs, err)
		case svcProductdata:
			_, err := cli.Live(env, productdata.EnvURL, productdata.EnvAccountKey)
			errs = append(errs, err)
		case svcReportstore:
			if o.livePayments && env(reportstore.EnvURL) != "" {
				paying = true
				errs = append(errs, checkEVMWallet(env))
			}
		case svcGPUPrice:
			if o.livePayments && env(gpuprice.EnvURL) != "" {
				paying = true
				errs = append(errs, checkSolanaWallet(env))
			}
		}
	}
	if o.livePayments && !paying {
		errs = append(errs, fmt.Errorf("-live-payments pays a live service, and none of the tour's is: set %s or %s, and name it in -only if -only is given",
			reportstore.EnvURL, gpuprice.EnvURL))
	}
	return errors.Join(errs...)
}

// checkEVMWallet checks the wallet that pays a live report store.
func checkEVMWallet(env func(string) string) error {
	key := env(cli.EnvEVMPrivateKey)
	if key == "" {
		return fmt.Errorf("-live-payments with %s needs %s, the hex private key of a wallet holding USDC on Base", reportstore.EnvURL, cli.EnvEVMPrivateKey)
	}
	if _, err := evm.NewPrivateKeySigner(key); err != nil {
		return fmt.Errorf("%s: %w", cli.EnvEVMPrivateKey, err)
	}
	return nil
}

// checkSolanaWallet checks the wallet, node and treasury of a live key purchase.
func checkSolanaWallet(env func(string) string) error {
	var missing []string
	for _, v := range []string{cli.EnvSolanaPrivateKey, gpuprice.EnvRPCURL, cli.EnvGPUPriceTreasury} {
		if env(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("-live-payments with %s needs %s: the paying wallet's base58 key, the Solana node and the service's treasury",
			gpuprice.EnvURL, strings.Join(missing, ", "))
	}
	if _, err := svm.PrivateKeySignerFromBase58(env(cli.EnvSolanaPrivateKey)); err != nil {
		return fmt.Errorf("%s is not a base58 Solana private key", cli.EnvSolanaPrivateKey)
	}
	if _, err := solana.PublicKeyFromBase58(env(cli.EnvGPUPriceTreasury)); err != nil {
		return fmt.Errorf("%s: %w", cli.EnvGPUPriceTreasury, err)
	}
	return nil
}

// session is what the steps of one tour share: where to print, the environment, the logger,
// the transport that counts requests, and what must be closed at the end.
type session struct {
	out    io.Writer
	env    func(string) string
	opts   options
	logger *slog.Logger
	// cap is the most the whole session may spend, in USDC atomic units, and budget the one
	// budget every payment of the session (report purchases and the key purchase) draws on.
	cap    *big.Int
	budget *budget.Budget
	// payments are the session's payments, in the order they were made.
	payments []payment
	// units counts the product-data request units the session consumed.
	units    atomic.Int64
	requests atomic.Int64
	closers  []func()
}

// countingTransport counts every request the tour's clients send, retries and polls
// included.
type countingTransport struct {
	next  http.RoundTripper
	count *atomic.Int64
}

// RoundTrip counts req and sends it.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.count.Add(1)
	return t.next.RoundTrip(req)
}

// httpClient returns an *http.Client whose requests the session counts, on a transport of
// its own (each service keeps its own connection pool).
func (s *session) httpClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: countingTransport{next: t, count: &s.requests}}
}

// closeLater registers f to run when the tour ends.
func (s *session) closeLater(f func()) { s.closers = append(s.closers, f) }

// close runs the registered functions, last first.
func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// printf writes one line of the tour, indented under its step.
func (s *session) printf(format string, args ...any) {
	fmt.Fprintf(s.out, "  "+format+"\n", args...)
}

// payment is one USDC payment the session made.
type payment struct {
	// Amount is what was paid, in USDC atomic units.
	Amount *big.Int
	// To is the payee, Rail how it was paid, and For what it bought.
	To, Rail, For string
}

// paid records a payment the session made and prints where it went.
func (s *session) paid(p payment) {
	s.payments = append(s.payments, p)
	s.printf("paid %s", p)
}

// String says how much went where, for what.
func (p payment) String() string {
	return fmt.Sprintf("%s to %s (%s) for %s", usdc.Format(p.Amount), p.To, p.Rail, p.For)
}

// live reports whether the service's URL variable is set.
func (s *session) live(urlVar string) bool { return s.env(urlVar) != "" }

// stepResult is the outcome of one service's step.
type stepResult struct {
	Service  string
	Err      error
	Duration time.Duration
	// Detail is the step's own result, checked by the tests.
	Detail any
}

// report is the outcome of a whole tour.
type report struct {
	Steps []stepResult
	// Spent and Reserved are the session budget's committed and still-counted amounts, in
	// USDC atomic units, earlier runs' included with -budget.
	Spent, Reserved *big.Int
	// SpentBefore is what the budget had spent when the session started: zero for a new
	// budget, what earlier runs spent for one kept with -budget.
	SpentBefore *big.Int
	// Payments are the payments the session made, whose amounts add up to Spent minus
	// SpentBefore.
	Payments []payment
	// Units is the product-data request units consumed.
	Units int64
	// Requests is the number of HTTP requests sent, retries and polls included.
	Requests int64
	// Duration is how long the steps took.
	Duration time.Duration
}

// OK reports whether every step did what it says.
func (r *report) OK() bool {
	for _, s := range r.Steps {
		if s.Err != nil {
			return false
		}
	}
	return len(r.Steps) > 0
}

// runStep runs one service's step, prints its heading and outcome, and records it.
func (s *session) runStep(ctx context.Context, rep *report, service, title string, step func(context.Context) (any, error)) {
	fmt.Fprintf(s.out, "%s: %s\n", service, title)
	start := time.Now()
	detail, err := step(ctx)
	res := stepResult{Service: service, Err: err, Duration: time.Since(start), Detail: detail}
	if err != nil {
		fmt.Fprintf(s.out, "  FAILED: %s\n", err)
	} else if res.Duration > time.Second {
		s.printf("(%s)", res.Duration.Round(10*time.Millisecond))
	}
	rep.Steps = append(rep.Steps, res)
}
