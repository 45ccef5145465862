package gpuprice_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// FuzzDecodeBodies feeds any bytes to every body decoder of the price API. None panics, and
// a body that decodes keeps itself whole in Raw and never reads as an empty list it did not
// hold: a list type that decodes has a non-nil list.
func FuzzDecodeBodies(f *testing.F) {
	for _, seed := range []string{
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"lambda":2.84}}`,
		`{"prices":[{"model":"H100","platform":"aws","usd_per_hour":4.1}],"updated_at":"2026-11-01T00:00:00Z"}`,
		`[{"model":"A100","price":1.2}]`,
		`{"platforms":["aws",{"id":"gcp","name":"Google Cloud"}]}`,
		`{"symbol":"GCFI","value":2.74,"bid":2.73,"ask":2.75,"spread":0.02,"components":[{"platform":"aws","weight":0.1}]}`,
		`{"bids":[[2.7,10]],"asks":[{"price":2.8,"quantity":5}],"matches":[{"price":2.75}]}`,
		`{"snapshots":[{"timestamp":"2026-11-01T00:00:00Z","usd_per_hour":2.9}],"benchmarks":[{"model":"H100","score":1}]}`,
		`{"count":0}`, `null`, `"\xff\xfe"`, `{"prices":null,"count":3}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(name string, v any, raw func() json.RawMessage, list func() bool) {
			if err := json.Unmarshal(body, v); err != nil {
				return
			}
			if r := raw(); r != nil && !bytes.Equal(bytes.TrimSpace(r), bytes.TrimSpace(body)) {
				t.Fatalf("%s: Raw %q is not the body %q", name, r, body)
			}
			if list != nil && !list() {
				t.Fatalf("%s decoded %q with a nil list", name, body)
			}
		}
		var cp gpuprice.CheapestPrice
		check("CheapestPrice", &cp, func() json.RawMessage { return cp.Raw }, nil)
		var cl gpuprice.CheapestList
		check("CheapestList", &cl, func() json.RawMessage { return cl.Raw }, nil)
		var pt gpuprice.PriceTable
		check("PriceTable", &pt, func() json.RawMessage { return pt.Raw }, func() bool { return pt.Prices != nil })
		var pd gpuprice.PlatformDirectory
		check("PlatformDirectory", &pd, func() json.RawMessage { return pd.Raw }, nil)
		var fi gpuprice.FuturesIndex
		check("FuturesIndex", &fi, func() json.RawMessage { return fi.Raw }, nil)
		var fc gpuprice.FuturesComponents
		check("FuturesComponents", &fc, func() json.RawMessage { return fc.Raw }, nil)
		var ob gpuprice.OrderBook
		check("OrderBook", &ob, func() json.RawMessage { return ob.Raw }, nil)
		var h gpuprice.History
		check("History", &h, func() json.RawMessage { return h.Raw }, nil)
	})
}

// cheapestMembers are the members of the cheapest price the API description names.
var cheapestMembers = []string{"model", "best_platform", "best_price_usd_hr", "saving_pct_vs_dearest", "all_on_demand"}

// FuzzCheapestPriceIsStrict checks the decoding of the one body the API description shows.
// A body that decodes gives the values plain encoding/json finds in it and keeps itself in
// Raw; and the same body without any one of the five members (in any letter case, as
// encoding/json matches them) is refused with an error naming that member.
func FuzzCheapestPriceIsStrict(f *testing.F) {
	for _, seed := range []string{
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"lambda":2.84}}`,
		`{"model":"","best_platform":"","best_price_usd_hr":0,"saving_pct_vs_dearest":0,"all_on_demand":{}}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{},"model":null}`,
		`{"model":null,"best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{},"model":"A"}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"a":1},"all_on_demand":null}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":"2.84","saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"MODEL":"H100","Best_Platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"model":"H100","best_platform":7}`, `null`, `[]`, `{}`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p gpuprice.CheapestPrice
		if json.Unmarshal(body, &p) != nil {
			return
		}
		var plain floorCheapest
		if err := json.Unmarshal(body, &plain); err != nil {
			t.Fatalf("CheapestPrice decoded %q, which plain decoding refuses: %v", body, err)
		}
		if p.Model != plain.Model || p.BestPlatform != plain.BestPlatform || p.BestPriceUSDHr != plain.BestPriceUSDHr ||
			p.SavingPctVsDearest != plain.SavingPctVsDearest || !reflect.DeepEqual(p.AllOnDemand, plain.AllOnDemand) {
			t.Fatalf("CheapestPrice decoded %q as %+v; plain decoding gives %+v", body, p, plain)
		}
		if !bytes.Equal(p.Raw, bytes.TrimSpace(body)) {
			t.Fatalf("Raw %q is not the body %q", p.Raw, body)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(body, &members); err != nil {
			t.Fatalf("a decoded price is not an object: %v", err)
		}
		for _, name := range cheapestMembers {
			without := map[string]json.RawMessage{}
			for k, v := range members {
				if !strings.EqualFold(k, name) {
					without[k] = v
				}
			}
			b, err := json.Marshal(without)
			if err != nil {
				t.Fatal(err)
			}
			var q gpuprice.CheapestPrice
			if err := json.Unmarshal(b, &q); err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Fatalf("without %s, %q decodes with %v", name, b, err)
			}
		}
	})
}

// FuzzNodeAnswers puts any bytes in the Solana node's answers to the two calls whose
// content BuyKey reads and judges (the payer's USDC balance and the transaction's status),
// the others coming from the fake node. Whatever the node says, BuyKey does not panic, its
// error is typed and never quotes the payer's private key, and the budget follows the money:
// a failure before the transaction was sent leaves nothing spent or reserved, one after it
// keeps the price counted, and a success spends exactly the price.
func FuzzNodeAnswers(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":{"amount":"9000000","decimals":6,"uiAmountString":"9"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":[{"slot":1,"confirmations":null,"err":null,"confirmationStatus":"confirmed"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":{"amount":"1","decimals":6}}}`), []byte(`{}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":{"amount":"9000000","decimals":9}}}`), []byte(`null`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":{"amount":"99999999999999999999","decimals":6}}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":[{"slot":1,"err":{"InstructionError":[0,"Custom"]},"confirmationStatus":"confirmed"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"could not find account"}}`), []byte("\xff"))

	srv := gpupricetest.NewServer()
	f.Cleanup(srv.Close)
	key := solana.NewWallet().PrivateKey
	srv.FundUSDC(key.PublicKey(), usdc.Dollars(100))
	srv.FundSOL(key.PublicKey(), 1_000_000_000) // the fees of 200,000 purchases
	payer, err := svm.NewPrivateKeySigner(key)
	if err != nil {
		f.Fatal(err)
	}
	const price = 5_000_000

	// One node for the whole run; each input sets the two answers it serves (inputs run one at
	// a time in a fuzzing process).
	var answers atomic.Pointer[[2][]byte]
	// One connection pool for every input: a client per input would open connections faster
	// than closed ones free their ports.
	pool := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		a := answers.Load()
		switch {
		case bytes.Contains(req, []byte(`"getTokenAccountBalance"`)):
			_, _ = w.Write(a[0])
		case bytes.Contains(req, []byte(`"getSignatureStatuses"`)):
			_, _ = w.Write(a[1])
		default:
			resp, err := pool.Post(srv.RPCURL, "application/json", bytes.NewReader(req))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
		}
	}))
	f.Cleanup(node.Close)
	nodeClient := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(node.URL, &jsonrpc.RPCClientOpts{HTTPClient: pool}))

	f.Fuzz(func(t *testing.T, balance, status []byte) {
		answers.Store(&[2][]byte{balance, status})
		c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCClient(nodeClient), gpuprice.WithHTTPClient(pool),
			gpuprice.WithRetry(testkit.NoRetry), gpuprice.WithWait(sdk.WaitPolicy{Timeout: time.Second}), gpuprice.WithClock(sdktest.NewClock(time.Now())))
		if err != nil {
			t.Fatal(err)
		}
		spend, err := budget.New(big.NewInt(10 * price))
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.BuyKey(t.Context(), &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: srv.Treasury, Budget: spend})
		spent, reserved := budgettest.Spent(t, spend).Int64(), budgettest.Reserved(t, spend).Int64()
		if err == nil {
			if k == nil || spent != price || reserved != 0 {
				t.Fatalf("a purchase succeeded with key %v, spent %d, reserved %d", k, spent, reserved)
			}
			return
		}
		rendered := fmt.Sprintf("%v %+v %#v", err, err, err)
		if strings.Contains(rendered, key.String()) {
			t.Fatal("the error quotes the payer's private key")
		}
		var (
			pe  *gpuprice.PaymentError
			re  *svm.RPCError
			ife *gpuprice.InsufficientFundsError
			ise *gpuprice.InsufficientSOLError
			ae  *sdk.APIError
			de  *sdk.DecodeError
		)
		switch {
		case errors.As(err, &pe):
			if spent+reserved != price {
				t.Fatalf("a payment that left (%v) counts %d spent + %d reserved, not the price", pe.Outcome, spent, reserved)
			}
		case errors.As(err, &re), errors.As(err, &ife), errors.As(err, &ise), errors.As(err, &ae), errors.As(err, &de):
			if spent != 0 || reserved != 0 {
				t.Fatalf("nothing was sent (%v), yet %d spent and %d reserved", err, spent, reserved)
			}
		default:
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}
