package gpupricetest_test

import (
	"fmt"
	"math/big"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/x402/usdc"
)

func TestAProKeyIsIssuedOncePerSignatureAndWorks(t *testing.T) {
	t.Parallel()
	srv := start(t)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(5))
	sig := pay(t, srv, payer,
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, usdc.Dollars(5).Uint64(), usdc.Decimals),
		memo(payer.PublicKey(), gpupricetest.MemoPro))

	a := redeem(t, srv, sig.String())
	require.Equal(t, http.StatusCreated, a.Status, a.JSON)
	key, _ := a.JSON["api_key"].(string)
	require.NotEmpty(t, key)
	assert.Equal(t, "pro", a.JSON["plan"])
	assert.Equal(t, "2026-04-14T15:30:00Z", a.JSON["expires_at"], "one month")
	assert.Equal(t, sig.String(), a.JSON["tx_signature"])
	plan, expires, ok := srv.KeyPlan(key)
	require.True(t, ok)
	assert.Equal(t, gpupricetest.PlanPro, plan)
	assert.Equal(t, t0.AddDate(0, 1, 0), expires)

	h := do(t, srv, http.MethodGet, "/v1/history?limit=1", "", key)
	assert.Equal(t, http.StatusOK, h.Status)
	assert.Equal(t, "1000", h.Header.Get("X-RateLimit-Limit"))

	again := redeem(t, srv, sig.String())
	assert.Equal(t, http.StatusConflict, again.Status)
	assert.Equal(t, "already_redeemed", again.ErrorCode())
	assert.NotContains(t, fmt.Sprintf("%+v", srv.Requests()), key, "the request log never holds a key")
}

func TestAnUnlimitedKey(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(20))
	sig := pay(t, srv, payer,
		createIdempotent(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint),
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 12_000_000, 6),
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 7_000_000, 6),
		memo(payer.PublicKey(), gpupricetest.MemoUnlimited))
	a := redeem(t, srv, sig.String())
	require.Equal(t, http.StatusCreated, a.Status, a.JSON)
	assert.Equal(t, "unlimited", a.JSON["plan"], "two transfers to the treasury add up")
	assert.Equal(t, "$19.00", usdc.Format(srv.USDCBalance(srv.Treasury)))
}

func TestPaymentsThatBuyNothingAreRefusedWithDistinctCodes(t *testing.T) {
	t.Parallel()
	otherMint := solana.NewWallet().PublicKey()
	srv := start(t, gpupricetest.WithMint(otherMint, 6))
	payer, stranger := newPayer(srv), newWallet()
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(100))
	srv.FundUSDC(stranger.PublicKey(), new(big.Int))
	srv.FundToken(otherMint, payer.PublicKey(), big.NewInt(100_000_000))
	usdcTransfer := func(amount uint64) solana.Instruction {
		return transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, amount, 6)
	}
	pro := memo(payer.PublicKey(), "API-PRO")

	cases := map[string]struct {
		ixs  []solana.Instruction
		code string
	}{
		"short amount":       {[]solana.Instruction{usdcTransfer(4_999_999), pro}, "insufficient_amount"},
		"pro price, ULTRA":   {[]solana.Instruction{usdcTransfer(5_000_000), memo(payer.PublicKey(), "API-ULTRA")}, "insufficient_amount"},
		"lower-case memo":    {[]solana.Instruction{usdcTransfer(5_000_000), memo(payer.PublicKey(), "api-pro")}, "wrong_memo"},
		"memo with a suffix": {[]solana.Instruction{usdcTransfer(5_000_000), memo(payer.PublicKey(), "API-PRO ")}, "wrong_memo"},
		"no memo":            {[]solana.Instruction{usdcTransfer(5_000_000)}, "wrong_memo"},
		"two plans":          {[]solana.Instruction{usdcTransfer(19_000_000), pro, memo(payer.PublicKey(), "API-ULTRA")}, "wrong_memo"},
		"wrong destination":  {[]solana.Instruction{transfer(t, payer, stranger.PublicKey(), gpupricetest.USDCMint, 5_000_000, 6), pro}, "wrong_destination"},
		"wrong mint": {[]solana.Instruction{
			createIdempotent(payer.PublicKey(), srv.Treasury, otherMint),
			transfer(t, payer, srv.Treasury, otherMint, 5_000_000, 6), pro,
		}, "wrong_mint"},
		"no transfer": {[]solana.Instruction{pro}, "no_transfer"},
	}
	for name, tc := range cases {
		sig := pay(t, srv, payer, tc.ixs...)
		a := redeem(t, srv, sig.String())
		assert.Equal(t, http.StatusUnprocessableEntity, a.Status, name)
		assert.Equal(t, tc.code, a.ErrorCode(), name)
		assert.NotEmpty(t, a.ErrorMessage(), name)
	}
	assert.Equal(t, "5000000", srv.TokenBalance(otherMint, srv.Treasury).String(), "the wrong token did arrive")

	for name, tc := range map[string]struct {
		body   string
		status int
		code   string
	}{
		"unknown signature":   {`{"tx_signature":"` + solana.Signature{9}.String() + `"}`, http.StatusNotFound, "tx_not_found"},
		"not a signature":     {`{"tx_signature":"abc"}`, http.StatusBadRequest, "invalid_signature"},
		"a 32-byte value":     {`{"tx_signature":"` + srv.Treasury.String() + `"}`, http.StatusBadRequest, "invalid_signature"},
		"another field name":  {`{"signature":"` + solana.Signature{9}.String() + `"}`, http.StatusBadRequest, "invalid_request"},
		"no signature":        {`{}`, http.StatusBadRequest, "invalid_request"},
		"not JSON":            {`tx_signature=abc`, http.StatusBadRequest, "invalid_request"},
		"signature is number": {`{"tx_signature":5}`, http.StatusBadRequest, "invalid_request"},
	} {
		a := do(t, srv, http.MethodPost, gpupricetest.DefaultRedeemPath, tc.body, "")
		assert.Equal(t, tc.status, a.Status, name)
		assert.Equal(t, tc.code, a.ErrorCode(), name)
	}
	assert.Empty(t, srv.Requests()[0].Query, "the signature travels in the body")
}

func TestTheRefusalMessagesExplain(t *testing.T) {
	t.Parallel()
	srv := start(t)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	sig := pay(t, srv, payer, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 4_500_000, 6), memo(payer.PublicKey(), "API-PRO"))
	a := redeem(t, srv, sig.String())
	assert.Equal(t, "the transaction pays $4.50 of USDC to the treasury; the pro plan costs $5.00", a.ErrorMessage())
	sig = pay(t, srv, payer, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6), memo(payer.PublicKey(), "API PRO"))
	a = redeem(t, srv, sig.String())
	assert.Equal(t, `the memo must be exactly "API-PRO" or "API-ULTRA"; the transaction carries the memo "API PRO"`, a.ErrorMessage())
}

func TestTheRedeemPathIsConfigurable(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithRedeemPath("/v1/billing/redeem"), gpupricetest.WithConfirmAfter(0))
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(5))
	c := node(srv)
	sig, err := send(t, c, build(t, c, []solana.PrivateKey{payer},
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6), memo(payer.PublicKey(), "API-PRO")))
	require.NoError(t, err)
	body := `{"tx_signature":"` + sig.String() + `"}`
	assert.Equal(t, http.StatusNotFound, do(t, srv, http.MethodPost, gpupricetest.DefaultRedeemPath, body, "").Status)
	a := do(t, srv, http.MethodPost, "/v1/billing/redeem", body, "")
	assert.Equal(t, http.StatusCreated, a.Status)
}

func TestATreasuryOfTheCallersChoice(t *testing.T) {
	t.Parallel()
	treasury := newWallet().PublicKey()
	srv := start(t, gpupricetest.WithTreasury(treasury))
	assert.Equal(t, treasury, srv.Treasury)
	assert.True(t, srv.TokenAccountExists(ata(t, treasury, gpupricetest.USDCMint)))
	assert.Equal(t, ata(t, treasury, gpupricetest.USDCMint), srv.TreasuryATA())
	other := start(t)
	assert.NotEqual(t, srv.Treasury, other.Treasury, "each fake generates its own")
}

func TestRedemptionIsNotCountedAgainstTheQuota(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(1))
	for range 3 {
		a := redeem(t, srv, solana.Signature{1}.String())
		assert.Equal(t, "tx_not_found", a.ErrorCode())
		assert.Empty(t, a.Header.Get("X-RateLimit-Limit"))
	}
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status)
}
