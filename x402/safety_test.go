package x402_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestApproveHookCannotChangeWhatIsSigned(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(1000)}, nil)
	policy := x402.Policy{MaxPerPayment: big.NewInt(1000), MaxTotal: budget.Unlimited, Approve: func(_ context.Context, q x402.Quote) error {
		q.Requirements.Amount.SetInt64(5_000_000) // a hook that mutates what it was shown
		q.Requirements.PayTo = "0x000000000000000000000000000000000000dEaD"
		q.Requirements.Extra["name"] = "Evil Coin"
		return nil
	}}
	payer, _, client := newPayer(t, s.f, 10_000_000, policy)
	_, _, err := get(t, client, s.srv.URL+"/x")
	require.NoError(t, err)
	sent := s.payments.all()
	require.Len(t, sent, 1)
	p, err := wire.DecodePaymentPayload(sent[0])
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(1000), exactOf(t, p).Authorization.Value, "what is signed is what the policy checked")
	assert.Equal(t, shopAddress, exactOf(t, p).Authorization.To)
	assert.Equal(t, big.NewInt(1000), budgettest.Spent(t, payer))
	assert.Equal(t, big.NewInt(1000), s.f.Settlements()[0].Value)
}

func TestValidityWindowIsClamped(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	clock := sdktest.NewClock(at)
	for name, tc := range map[string]struct {
		maxTimeout int
		policy     time.Duration
		want       time.Duration
	}{
		"absurd server timeout, default cap": {2147483647, 0, x402.DefaultMaxValidity},
		"server shorter than the cap":        {90, 0, 90 * time.Second},
		"policy cap":                         {3600, 5 * time.Minute, 5 * time.Minute},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(10), MaxTimeoutSeconds: tc.maxTimeout}, nil, x402test.WithClock(clock))
			_, _, client := newPayerAt(t, s.f, 1000, x402.Policy{MaxValidity: tc.policy, MaxTotal: budget.Unlimited}, clock)
			_, _, err := get(t, client, s.srv.URL+"/x")
			require.NoError(t, err)
			p, err := wire.DecodePaymentPayload(s.payments.all()[0])
			require.NoError(t, err)
			assert.Equal(t, at.Add(tc.want).Unix(), exactOf(t, p).Authorization.ValidBefore.Int64())
		})
	}
	_, err := x402.NewPayer(x402.Policy{MaxValidity: -time.Second, MaxTotal: budget.Unlimited}, exact(t, newSigner(t)))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "Policy.MaxValidity", ve.Field)
}

func TestRedirectToAnotherOriginIsNotPaid(t *testing.T) {
	t.Parallel()
	// The store answers 302 to a host whose 402 names another payee; the payer has no PayTo
	// list, as in a quick start.
	foreign := newShop(t, x402test.PaywallConfig{PayTo: "0x000000000000000000000000000000000000bEEF", Amount: big.NewInt(100)}, nil)
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, foreign.srv.URL+"/report/x", http.StatusFound)
	}))
	t.Cleanup(store.Close)
	payer, signer, client := newPayer(t, foreign.f, 10_000, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err := get(t, client, store.URL+"/report/x")
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrOriginNotAllowed)
	assert.Equal(t, strings.TrimPrefix(foreign.srv.URL, ""), pe.Origin)
	assert.Zero(t, signer.Signed(), "nothing is signed")
	assert.Empty(t, foreign.f.Settlements())
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())

	// A policy that lists the origin lets the payment through.
	payer2, _, client2 := newPayer(t, foreign.f, 10_000, x402.Policy{RedirectOrigins: []string{foreign.srv.URL}, MaxTotal: budget.Unlimited})
	_, _, err = get(t, client2, store.URL+"/report/x")
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer2))

	// A redirect within the same origin is paid as usual.
	same := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, "the goods")
	}))
	mux := http.NewServeMux()
	mux.Handle("/new", same.srv.Config.Handler)
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", http.StatusMovedPermanently) })
	local := httptest.NewServer(mux)
	t.Cleanup(local.Close)
	payer3, _, client3 := newPayer(t, same.f, 10_000, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err = get(t, client3, local.URL+"/old")
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer3))

	_, err = x402.NewPayer(x402.Policy{RedirectOrigins: []string{"https://h/path"}, MaxTotal: budget.Unlimited}, exact(t, newSigner(t)))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
}

func TestEvaluateAppliesThePolicyWithoutSigning(t *testing.T) {
	t.Parallel()
	payer, signer, _ := newPayer(t, nil, 0, x402.Policy{Networks: []string{evm.NetworkBaseSepolia}, MaxTotal: budget.Unlimited})
	pr := &wire.PaymentRequired{X402Version: 2, Accepts: []wire.PaymentRequirements{{
		Scheme: "exact", Network: evm.NetworkBase, Amount: big.NewInt(10), Asset: evm.USDCBase,
		PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
	}}}
	_, err := payer.Evaluate(pr)
	var nu *x402.NoUsableRequirementsError
	require.ErrorAs(t, err, &nu, "a network the policy does not allow is refused")
	assert.Contains(t, err.Error(), "not allowed by the policy")
	assert.Zero(t, signer.Signed())

	payer, _, _ = newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	r, err := payer.Evaluate(pr)
	require.NoError(t, err)
	r.Amount.SetInt64(99)
	assert.Equal(t, big.NewInt(10), pr.Accepts[0].Amount, "the entry returned is a copy")
}

func TestPaidRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		settled bool
	}{"with a success receipt": {true}, "without a receipt": {false}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var next *httptest.Server
			f := x402test.NewFacilitator()
			redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, next.URL+"/again", http.StatusFound)
			})
			var h http.Handler = x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, redirect)
			if !tc.settled {
				// The paid request is answered 302 before anything is settled.
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get(wire.HeaderPaymentSignature) != "" {
						redirect(w, r)
						return
					}
					x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, redirect).ServeHTTP(w, r)
				})
			}
			store := httptest.NewServer(h)
			t.Cleanup(store.Close)
			next = newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil).srv
			payer, signer, client := newPayer(t, f, 10_000, x402.Policy{RedirectOrigins: []string{next.URL}, MaxTotal: budget.Unlimited})
			resp, err := client.Get(store.URL + "/report/x")
			assert.Nil(t, resp)
			if tc.settled {
				var se *x402.PaymentSettledError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, http.StatusFound, se.StatusCode)
				assert.True(t, se.Receipt.Success)
				assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer))
				require.Len(t, f.Settlements(), 1)
				assert.Equal(t, f.Settlements()[0].ID, se.ID, "the error names the settled payment")
				assert.Equal(t, signer.Address(), se.Payer)
				assert.Equal(t, store.URL+"/report/x", se.Resource)
			} else {
				var ue *x402.PaymentUnconfirmedError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, http.StatusFound, ue.StatusCode)
				assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer))
			}
			assert.Equal(t, int64(1), signer.Signed(), "the redirect hop is never paid")
		})
	}
}

func TestPaymentNeverEchoedIntoErrors(t *testing.T) {
	t.Parallel()
	var sig string
	echo := func(status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			v := r.Header.Get(wire.HeaderPaymentSignature)
			if v == "" {
				pr := &wire.PaymentRequired{X402Version: 2, Error: "Payment required", Accepts: []wire.PaymentRequirements{{
					Scheme: "exact", Network: evm.NetworkBase, Amount: big.NewInt(10), Asset: evm.USDCBase,
					PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
				}}}
				enc, _ := wire.EncodePaymentRequired(pr)
				w.Header().Set(wire.HeaderPaymentRequired, enc)
				w.WriteHeader(http.StatusPaymentRequired)
				return
			}
			p, _ := wire.DecodePaymentPayload(v)
			e, _ := evm.DecodeExactPayload(p)
			sig = "0x" + strings.ToUpper(hex.EncodeToString(e.Signature))
			msg := "you sent " + v + " signed " + sig
			if status == http.StatusPaymentRequired {
				pr := &wire.PaymentRequired{X402Version: 2, Error: msg, Accepts: []wire.PaymentRequirements{{
					Scheme: "exact", Network: evm.NetworkBase, Amount: big.NewInt(10), Asset: evm.USDCBase,
					PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
				}}}
				enc, _ := wire.EncodePaymentRequired(pr)
				w.Header().Set(wire.HeaderPaymentRequired, enc)
			}
			w.WriteHeader(status)
			_, _ = fmt.Fprint(w, strings.ToLower(msg))
		})
	}
	for _, status := range []int{http.StatusInternalServerError, http.StatusPaymentRequired, http.StatusNotFound} {
		srv := httptest.NewServer(echo(status))
		_, _, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
		_, err := client.Get(srv.URL + "/x")
		srv.Close()
		require.Error(t, err, "status %d", status)
		require.NotEmpty(t, sig)
		for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			assert.NotContains(t, strings.ToLower(text), strings.ToLower(sig[2:]), "status %d: the signature never reaches an error", status)
		}
		assert.Contains(t, err.Error(), "[REDACTED]", "status %d: the echo is visibly scrubbed", status)
	}
}

// A server that settles, then answers a redirect or a failure with a receipt echoing the
// payment (as its transaction, its payer, its extensions) does not get it into the
// *PaymentSettledError's text or fields.
func TestASettledReceiptEchoingThePaymentIsScrubbed(t *testing.T) {
	t.Parallel()
	var sig string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(wire.HeaderPaymentSignature)
		if v == "" {
			pr := &wire.PaymentRequired{X402Version: 2, Error: "Payment required", Accepts: []wire.PaymentRequirements{{
				Scheme: "exact", Network: evm.NetworkBase, Amount: big.NewInt(10), Asset: evm.USDCBase,
				PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
			}}}
			enc, _ := wire.EncodePaymentRequired(pr)
			w.Header().Set(wire.HeaderPaymentRequired, enc)
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		p, _ := wire.DecodePaymentPayload(v)
		e, _ := evm.DecodeExactPayload(p)
		sig = "0x" + hex.EncodeToString(e.Signature)
		receipt, _ := wire.EncodeSettleResponse(&wire.SettleResponse{Success: true, Transaction: sig, Network: evm.NetworkBase,
			Payer: v[:40], Extensions: []byte(`{"echo":"` + sig + `"}`)})
		w.Header().Set(wire.HeaderPaymentResponse, receipt)
		w.Header().Set("Location", "/elsewhere/"+sig)
		w.WriteHeader(http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	_, _, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, err := client.Get(srv.URL + "/x")
	var settled *x402.PaymentSettledError
	require.ErrorAs(t, err, &settled)
	require.NotEmpty(t, sig)
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", settled), fmt.Sprintf("%#v", *settled.Receipt),
		settled.Location, string(settled.Receipt.Extensions)} {
		assert.NotContains(t, strings.ToLower(text), strings.ToLower(sig[2:]))
	}
	assert.Contains(t, err.Error(), "[REDACTED]", "the echo is visibly scrubbed")
}
