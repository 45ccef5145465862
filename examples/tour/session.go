package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402"
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

// session is what the steps of one tour share: where to print, the environment, the logger,
// the transport that counts requests, and what must be closed at the end.
type session struct {
	out    io.Writer
	env    func(string) string
	opts   options
	logger *slog.Logger
	// cap is the most the whole session may spend, and budget the one budget every payment
	// of the session (report purchases and the key purchase) draws on.
	cap    reportstore.Price
	budget *x402.Budget
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
	// Spent and Reserved are the session budget's committed and still-counted amounts.
	Spent, Reserved reportstore.Price
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
		fmt.Fprintf(s.out, "  FAILED: %v\n", err)
	} else if res.Duration > time.Second {
		s.printf("(%s)", res.Duration.Round(10*time.Millisecond))
	}
	rep.Steps = append(rep.Steps, res)
}
