package x402_test

import (
	"context"
	"encoding/base64"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/soaktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// challengeOf asks s for its challenge, as a transport of any kind would read it.
func challengeOf(t *testing.T, s *shop) *wire.PaymentRequired {
	t.Helper()
	resp, err := http.Get(s.srv.URL + "/tool")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	pr, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	return pr
}

// settle decodes the payload an attempt hands out and settles it in f against the first
// entry of pr, as a server of any transport would.
func settle(t *testing.T, f *x402test.Facilitator, a *x402.Attempt, pr *wire.PaymentRequired) *wire.SettleResponse {
	t.Helper()
	p, err := wire.DecodePaymentPayload(string(a.Payload()))
	require.NoError(t, err)
	receipt, err := f.Settle(p, pr.Accepts[0])
	require.NoError(t, err)
	return receipt
}

func TestAnAttemptDeliveredCommitsWhatItsTransportSent(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(700)}, nil)
	payer, signer, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000)})
	pr := challengeOf(t, s)

	a, err := payer.Prepare(context.Background(), pr, "mcp://tool/search?q=secret-free")
	require.NoError(t, err)
	assert.Equal(t, int64(1), signer.Signed())
	assert.Equal(t, budgettest.Reserved(t, payer), big.NewInt(700), "counted from the signature on")
	payment := a.Payment()
	assert.Equal(t, "mcp://tool/search?q=secret-free", payment.Resource, "the resource as the transport named it")
	assert.Equal(t, big.NewInt(700), payment.Amount)
	assert.Equal(t, shopAddress, payment.PayTo)

	name, value := a.HTTPHeader()
	assert.Equal(t, wire.HeaderPaymentSignature, name)
	assert.Equal(t, base64.StdEncoding.EncodeToString(a.Payload()), value, "the header is the payload, as HTTP carries it")
	scan.Add(value)
	receipt := settle(t, s.f, a, pr)

	next, err := a.Answered(context.Background(), x402.Answer{Delivered: true, Receipt: receipt})
	require.NoError(t, err)
	assert.Nil(t, next)
	assert.Equal(t, big.NewInt(700), budgettest.Spent(t, payer))
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())

	_, err = a.Answered(context.Background(), x402.Answer{Delivered: true})
	require.Error(t, err, "an outcome is booked once")
	assert.Error(t, a.NoAnswer(context.Background(), errors.New("late")))
	assert.Equal(t, big.NewInt(700), budgettest.Spent(t, payer))
}

func TestAnAttemptWithoutAnswerIsDiscardedUntilItsPayloadIsTaken(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(300)}, nil)
	payer, _, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000)})
	pr := challengeOf(t, s)
	ctx := context.Background()

	a, err := payer.Prepare(ctx, pr, "mcp://tool/a")
	require.NoError(t, err)
	failure := errors.New("could not build the message")
	assert.Same(t, failure, a.NoAnswer(ctx, failure), "nothing left: the transport's own error")
	assert.Zero(t, budgettest.Reserved(t, payer).Sign(), "the signature never left: discarded")

	b, err := payer.Prepare(ctx, pr, "mcp://tool/b")
	require.NoError(t, err)
	payload := string(b.Payload())
	scan.Add(payload)
	err = b.NoAnswer(ctx, errors.New("connection reset after sending "+payload))
	scan.Record(err)
	var uc *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &uc)
	assert.Equal(t, b.Payment().ID, uc.ID)
	assert.Zero(t, uc.StatusCode)
	assert.NotContains(t, err.Error(), payload, "the payment is scrubbed from the transport's error")
	assert.Contains(t, err.Error(), "connection reset")
	out := budgettest.Outstanding(t, payer)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.InDoubt, out[0].State)
	assert.Equal(t, "mcp://tool/b", out[0].Resource)
}

func TestAnAttemptAnsweredWithASuccessReceiptAndNoDeliveryIsSettled(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(400)}, nil)
	payer, _, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000)})
	pr := challengeOf(t, s)
	a, err := payer.Prepare(context.Background(), pr, "mcp://tool/x")
	require.NoError(t, err)
	receipt := settle(t, s.f, a, pr)

	_, err = a.Answered(context.Background(), x402.Answer{Receipt: receipt, Reason: "the tool failed"})
	var se *x402.PaymentSettledError
	require.ErrorAs(t, err, &se)
	assert.Zero(t, se.StatusCode)
	assert.Equal(t, receipt.Transaction, se.Receipt.Transaction)
	assert.Contains(t, err.Error(), "but the answer was an error", "no status to name")
	assert.Equal(t, big.NewInt(400), budgettest.Spent(t, payer))
}

func TestAnAttemptInDoubtStaysCounted(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(400)}, nil)
	payer, _, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000), AllowRequote: true})
	pr := challengeOf(t, s)
	a, err := payer.Prepare(context.Background(), pr, "mcp://tool/x")
	require.NoError(t, err)
	payload := string(a.Payload())

	next, err := a.Answered(context.Background(), x402.Answer{InDoubt: true, Reason: "internal error echoing " + payload, Challenge: pr})
	scan.Record(err)
	assert.Nil(t, next, "an answer in doubt is never re-quoted")
	var uc *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &uc)
	assert.Equal(t, "internal error echoing [REDACTED]", uc.Reason)
	assert.Equal(t, big.NewInt(400), budgettest.Reserved(t, payer))
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
}

func TestAnAttemptRefusedPaysANewQuoteOnceWhenThePolicyAllows(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(200)}, nil)
	var quotes []x402.Quote
	policy := x402.Policy{MaxTotal: big.NewInt(5_000), AllowRequote: true, Approve: func(_ context.Context, q x402.Quote) error {
		quotes = append(quotes, q)
		return nil
	}}
	payer, signer, _ := newPayer(t, s.f, 10_000, policy)
	pr := challengeOf(t, s)
	ctx := context.Background()

	a, err := payer.Prepare(ctx, pr, "mcp://tool/report")
	require.NoError(t, err)
	a.Payload()
	requote := *pr
	requote.Error = x402test.ReasonNoMatch
	b, err := a.Answered(ctx, x402.Answer{Challenge: &requote, Reason: requote.Error})
	require.NoError(t, err)
	require.NotNil(t, b, "the new quote is paid")
	assert.Equal(t, int64(2), signer.Signed())
	require.Len(t, quotes, 2)
	assert.False(t, quotes[0].Requote)
	assert.True(t, quotes[1].Requote)
	assert.Empty(t, quotes[0].Method, "not an HTTP request")
	require.NotNil(t, quotes[0].URL)
	assert.Equal(t, "mcp://tool/report", quotes[0].URL.String())

	b.Payload()
	c, err := b.Answered(ctx, x402.Answer{Challenge: &requote, Reason: "again"})
	assert.Nil(t, c, "once per request")
	var rj *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rj)
	assert.Equal(t, "again", rj.Reason)
	assert.Nil(t, rj.Requote)
	assert.WithinDuration(t, time.Now().Add(time.Minute), rj.HeldUntil, time.Minute+ledger.ExpiryMargin)
	assert.Equal(t, big.NewInt(400), budgettest.Reserved(t, payer), "both refused authorizations stay counted")
}

func TestAnAttemptRefusedSaysWhyItsNewQuoteWasNotPaid(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(200)}, nil)
	payer, signer, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000), MaxPerPayment: big.NewInt(250), AllowRequote: true})
	pr := challengeOf(t, s)
	ctx := context.Background()

	a, err := payer.Prepare(ctx, pr, "mcp://tool/a")
	require.NoError(t, err)
	dear := *pr
	dear.Accepts = []wire.PaymentRequirements{pr.Accepts[0].Clone()}
	dear.Accepts[0].Raw, dear.Accepts[0].Amount = nil, big.NewInt(300)
	failed := &wire.SettleResponse{ErrorReason: "insufficient_funds", Network: pr.Accepts[0].Network}
	next, err := a.Answered(ctx, x402.Answer{Challenge: &dear, Receipt: failed, Reason: strings.Repeat("x", 300)})
	assert.Nil(t, next)
	var rj *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rj)
	assert.ErrorIs(t, err, x402.ErrAmountOverCap, "the new quote's refusal")
	assert.Equal(t, "insufficient_funds", rj.Settlement.ErrorReason)
	assert.Len(t, rj.Reason, 203, "an excerpt")
	assert.Equal(t, int64(1), signer.Signed(), "the new quote is not signed")

	b, err := payer.Prepare(ctx, pr, "mcp://tool/b")
	require.NoError(t, err)
	unreadable := errors.New("unreadable challenge")
	_, err = b.Answered(ctx, x402.Answer{ChallengeErr: unreadable})
	require.ErrorAs(t, err, &rj)
	assert.ErrorIs(t, err, unreadable)
}

func TestPrepareRefusesAsTheRoundTripperDoes(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(2_000)}, nil)
	b, err := budget.New(big.NewInt(1_500))
	require.NoError(t, err)
	payer, signer, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxPerPayment: big.NewInt(5_000)}, x402.WithBudget(b))
	pr := challengeOf(t, s)
	ctx := context.Background()

	_, err = payer.Prepare(ctx, pr, "mcp://tool/a")
	assert.ErrorIs(t, err, x402.ErrBudgetExceeded)
	var pe *x402.PolicyError
	assert.ErrorAs(t, err, &pe)

	other, _, _ := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: big.NewInt(5_000), PayTo: []string{soaktest.ForeignEVM}})
	_, err = other.Prepare(ctx, pr, "mcp://tool/a")
	assert.ErrorIs(t, err, x402.ErrPayToNotAllowed)

	none := *pr
	none.Accepts = nil
	_, err = payer.Prepare(ctx, &none, "mcp://tool/a")
	var nu *x402.NoUsableRequirementsError
	assert.ErrorAs(t, err, &nu)
	_, err = payer.Prepare(ctx, nil, "mcp://tool/a")
	var ve *sdk.ValidationError
	assert.ErrorAs(t, err, &ve)
	assert.Zero(t, signer.Signed(), "nothing signed")
}
