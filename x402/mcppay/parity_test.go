package mcppay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// accounting is what one paid call or fetch left: its outcome, and the budget after it and
// after a reconciliation with the facilitator.
type accounting struct {
	outcome                   string
	settled                   int
	spent, reserved           int64
	states                    []ledger.State
	spentAfter, reservedAfter int64
}

// outcomeOf names the typed outcome of a paid call or fetch.
func outcomeOf(err error) string {
	var (
		rj *x402.PaymentRejectedError
		uc *x402.PaymentUnconfirmedError
		st *x402.PaymentSettledError
	)
	switch {
	case err == nil:
		return "delivered"
	case errors.As(err, &rj):
		return "rejected"
	case errors.As(err, &uc):
		return "unconfirmed"
	case errors.As(err, &st):
		return "settled"
	}
	return "untyped: " + err.Error()
}

// account runs pay with a new payer drawing on f and books what it left. With stalled, the
// call is given up (its context cancelled) as soon as f settled its payment, however long
// that took on a busy machine; otherwise it has 30 s, a bound no other call reaches.
func account(t *testing.T, f *x402test.Facilitator, stalled bool, pay func(ctx context.Context, payer *x402.Payer) error) accounting {
	t.Helper()
	payer, _ := newPayer(t, f, 100_000, x402.Policy{MaxTotal: big.NewInt(100_000)}, x402.WithResend(0, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if stalled {
		go func() {
			for len(f.Settlements()) == 0 && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
	}
	err := pay(ctx, payer)
	scan.Record(err)
	a := accounting{outcome: outcomeOf(err), settled: len(f.Settlements()),
		spent: budgettest.Spent(t, payer).Int64(), reserved: budgettest.Reserved(t, payer).Int64()}
	for _, o := range budgettest.Outstanding(t, payer) {
		a.states = append(a.states, o.State)
	}
	reconcileWith(t, payer, f)
	a.spentAfter, a.reservedAfter = budgettest.Spent(t, payer).Int64(), budgettest.Reserved(t, payer).Int64()
	return a
}

// Each fault around a settlement, met once over HTTP and once over MCP (in memory and over
// streamable HTTP), gives the same typed outcome and the same budget accounting: Spent,
// Reserved and the states of the outstanding payments, before and after a reconciliation.
// The HTTP payer does not re-send (an MCP call is sent once).
func TestFaultsGiveTheSameOutcomesAndAccountingAsOverHTTP(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name  string
		fault x402test.SettlementFault
		fail  bool // the facilitator refuses the settlement
	}{
		{"clean", x402test.NoFault, false},
		{"refused settlement", x402test.NoFault, true},
		{"error before settle", x402test.FaultErrorBeforeSettle, false},
		{"error after settle", x402test.FaultErrorAfterSettle, false},
		{"drop after settle", x402test.FaultDropAfterSettle, false},
		{"challenge after settle", x402test.FaultChallengeAfterSettle, false},
		{"stall after settle", x402test.FaultStallAfterSettle, false},
	}
	for _, tc := range faults {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stalled := tc.fault == x402test.FaultStallAfterSettle
			web := x402test.NewServer()
			t.Cleanup(web.Close)
			web.InjectSettlementFaults(tc.fault)
			if tc.fail {
				web.Facilitator().FailNextSettle("insufficient_funds")
			}
			want := account(t, web.Facilitator(), stalled, func(ctx context.Context, payer *x402.Payer) error {
				hc := &http.Client{Transport: payer.RoundTripper(web.Client().Transport)}
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, web.URL+"/doc", nil)
				require.NoError(t, err)
				resp, err := hc.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					require.Equal(t, http.StatusOK, resp.StatusCode)
				}
				return err
			})
			for _, transport := range transports {
				srv := x402test.NewMCPServer()
				t.Cleanup(srv.Close)
				srv.InjectSettlementFaults(tc.fault)
				if tc.fail {
					srv.Facilitator().FailNextSettle("insufficient_funds")
				}
				session := connect(t, srv, transport)
				got := account(t, srv.Facilitator(), stalled, func(ctx context.Context, payer *x402.Payer) error {
					_, err := callCtx(ctx, newClient(t, session, payer), x402test.DefaultMCPTool, nil)
					return err
				})
				assert.Equal(t, want, got, fmt.Sprintf("%s over MCP (%s) as over HTTP", tc.name, transport))
			}
			t.Logf("%s: %+v", tc.name, want)
		})
	}
}
