package budgetpg_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/crashtest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/x402test"
)

// The environment of a fleet child: the server's URL, the wallet's key and the budget's
// total.
const (
	envURL   = "BUDGETPG_TEST_URL"
	envKey   = "BUDGETPG_TEST_KEY"
	envTotal = "BUDGETPG_TEST_TOTAL"
)

// init lets a child process play a member of the fleet.
func init() { roles["fleet"] = fleetChild }

// fleetReport is what a fleet child says of its payments, as one line of JSON.
type fleetReport struct {
	// Paid counts the 2xx answers; Unconfirmed the payments whose answer was lost.
	Paid, Unconfirmed int
}

// fleetChild pays through the fleet's server as fast as it can, on a Budget in the shared
// PostgreSQL budget, until the budget refuses; then it reports.
func fleetChild(ctx context.Context) error {
	total, ok := new(big.Int).SetString(os.Getenv(envTotal), 10)
	if !ok {
		return errors.New("no total")
	}
	store, err := budgetpg.Open(ctx, os.Getenv(envDSN), budgetpg.WithName(os.Getenv(envBudget)))
	if err != nil {
		return err
	}
	defer store.Close()
	spend, err := budget.New(total, budget.WithStore(store))
	if err != nil {
		return err
	}
	payer, err := crashtest.ChildPayer(os.Getenv(envKey), spend)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: payer.RoundTripper(nil), Timeout: 30 * time.Second}
	var report fleetReport
	for i := 0; ; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/item/%d/%d", os.Getenv(envURL), os.Getpid(), i), nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		var pe *x402.PolicyError
		var ue *x402.PaymentUnconfirmedError
		switch {
		case err == nil:
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			report.Paid++
		case errors.As(err, &ue):
			report.Unconfirmed++
		case errors.As(err, &pe) && errors.Is(err, x402.ErrBudgetExceeded):
			return json.NewEncoder(os.Stdout).Encode(report)
		default:
			return err
		}
	}
}

// Eight processes pay as fast as they can on one PostgreSQL budget of 50 payments, through
// one server that drops 10% of the connections after settling the payment: the facilitator
// settles no more than 50, and the budget counts at least what it settled.
func TestFleetOfProcessesSharesOneBudget(t *testing.T) {
	t.Parallel()
	const processes, payments, price = 8, 50, x402test.DefaultPrice
	total := big.NewInt(payments * price)
	var paid atomic.Int64
	srv := x402test.NewServer(x402test.WithPaywall(x402test.PaywallConfig{
		PayTo: x402test.DefaultPayTo, Amount: big.NewInt(price),
		Fault: func(*http.Request) x402test.SettlementFault {
			if paid.Add(1)%10 == 0 {
				return x402test.FaultDropAfterSettle
			}
			return x402test.NoFault
		},
	}))
	defer srv.Close()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	hexKey := hex.EncodeToString(crypto.FromECDSA(key))
	scan.Add(hexKey)
	signer, err := evm.NewPrivateKeySigner(hexKey)
	require.NoError(t, err)
	srv.Facilitator().Fund(signer.Address(), new(big.Int).Mul(total, big.NewInt(10)))

	name := budgetName(t)
	env := []string{envURL + "=" + srv.URL, envKey + "=" + hexKey, envTotal + "=" + total.String()}
	fleet := make([]*child, processes)
	for i := range fleet {
		fleet[i] = startChild(t, "fleet", name, env...)
	}
	var sum fleetReport
	for _, c := range fleet {
		var r fleetReport
		require.NoError(t, json.Unmarshal([]byte(c.line(t, 90*time.Second)), &r))
		c.wait(t, 30*time.Second)
		sum.Paid += r.Paid
		sum.Unconfirmed += r.Unconfirmed
	}

	settled := new(big.Int)
	settlements := srv.Facilitator().Settlements()
	for _, s := range settlements {
		settled.Add(settled, s.Value)
	}
	assert.LessOrEqual(t, len(settlements), payments, "the facilitator settled no more than the budget allows")
	assert.LessOrEqual(t, settled.Cmp(total), 0)
	assert.Equal(t, len(settlements), sum.Paid+sum.Unconfirmed, "every settled payment was answered or left unconfirmed")
	assert.Positive(t, sum.Unconfirmed, "some connections were dropped after settling")

	store, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	defer store.Close()
	b, err := budget.New(total, budget.WithStore(store))
	require.NoError(t, err)
	spent, reserved, err := b.Totals(t.Context())
	require.NoError(t, err)
	counted := new(big.Int).Add(spent, reserved)
	assert.GreaterOrEqual(t, counted.Cmp(settled), 0, "the budget counts %s, the facilitator settled %s", counted, settled)
	assert.Equal(t, strconv.Itoa(sum.Paid*price), spent.String(), "what was answered is spent")
	assert.Equal(t, strconv.Itoa(sum.Unconfirmed*price), reserved.String(), "what was lost stays counted, in doubt")
	t.Logf("%d processes: %d payments settled (%d answered, %d dropped after settling); spent %s, reserved %s",
		processes, len(settlements), sum.Paid, sum.Unconfirmed, spent, reserved)
}
