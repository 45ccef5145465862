package interop_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
)

// keyService is the price API's key redemption, as the tests' own: it issues a key for a
// payment only once it has checked the transaction on the litesvm runtime: it succeeded,
// the treasury's USDC account received at least the plan's price, and the transaction
// carries one memo, exactly the plan's.
type keyService struct {
	URL      string
	node     *solanaNode
	treasury solana.PublicKey

	mu     sync.Mutex
	issued map[solana.Signature]string
}

// startKeyService starts the redemption of payments to treasury, checked on node.
func startKeyService(t *testing.T, node *solanaNode, treasury solana.PublicKey) *keyService {
	t.Helper()
	s := &keyService{node: node, treasury: treasury, issued: map[solana.Signature]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// issuedFor returns the key issued for the payment sig, "" when none was.
func (s *keyService) issuedFor(sig solana.Signature) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued[sig]
}

// ServeHTTP answers POST /v1/keys/redeem {"tx_signature"} with 201 {api_key, plan,
// expires_at, tx_signature}, or {"error":{"code","message"}}.
func (s *keyService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/keys/redeem" {
		keyReply(w, http.StatusNotFound, keyError("not_found", "no such operation"))
		return
	}
	var req struct {
		TxSignature string `json:"tx_signature"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
		keyReply(w, http.StatusBadRequest, keyError("invalid_request", "the body must be {\"tx_signature\":\"...\"}"))
		return
	}
	sig, err := solana.SignatureFromBase58(req.TxSignature)
	if err != nil {
		keyReply(w, http.StatusBadRequest, keyError("invalid_signature", "tx_signature is not a base58 signature"))
		return
	}
	legacy := uint64(0)
	tx, err := s.node.RPC.GetTransaction(r.Context(), sig, &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &legacy})
	switch {
	case errors.Is(err, rpc.ErrNotFound):
		keyReply(w, http.StatusNotFound, keyError("tx_not_found", "the runtime has no such transaction"))
		return
	case err != nil:
		keyReply(w, http.StatusBadGateway, keyError("node_error", "the runtime did not answer"))
		return
	case tx.Meta == nil || tx.Meta.Err != nil:
		keyReply(w, http.StatusUnprocessableEntity, keyError("tx_failed", "the transaction failed on chain"))
		return
	}
	plan, code, message := s.verify(tx)
	if code != "" {
		keyReply(w, http.StatusUnprocessableEntity, keyError(code, message))
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issued[sig] != "" {
		keyReply(w, http.StatusConflict, keyError("already_redeemed", "a key was already issued for this transaction"))
		return
	}
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	key := "gpk_" + hex.EncodeToString(secret)
	scan.Add(key)
	s.issued[sig] = key
	keyReply(w, http.StatusCreated, map[string]any{
		"api_key": key, "plan": plan, "tx_signature": sig.String(),
		"expires_at": time.Now().UTC().AddDate(0, 1, 0).Format(time.RFC3339),
	})
}

// verify checks what a confirmed transaction paid: the plan of its one memo, and at least
// that plan's price received by the treasury's USDC account (its balance after the
// transaction less its balance before, 0 when the transaction created it). It returns the
// plan, or the code and message of the refusal.
func (s *keyService) verify(res *rpc.GetTransactionResult) (gpuprice.Plan, string, string) {
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return "", "invalid_transaction", "the transaction does not decode: " + err.Error()
	}
	var memos []string
	for _, ix := range tx.Message.Instructions {
		if program, err := tx.Message.Program(ix.ProgramIDIndex); err == nil && program.Equals(solana.MemoProgramID) {
			memos = append(memos, string(ix.Data))
		}
	}
	plans := map[string]gpuprice.Plan{gpuprice.MemoPro: gpuprice.PlanPro, gpuprice.MemoUnlimited: gpuprice.PlanUnlimited}
	if len(memos) != 1 || plans[memos[0]] == "" {
		return "", "wrong_memo", "the transaction must carry exactly one memo, API-PRO or API-ULTRA"
	}
	plan := plans[memos[0]]
	price, _ := plan.Price()

	treasuryATA, _, err := solana.FindAssociatedTokenAddress(s.treasury, gpuprice.USDCMint)
	if err != nil {
		return "", "no_transfer", err.Error()
	}
	balance := func(balances []rpc.TokenBalance) *big.Int {
		for _, b := range balances {
			if int(b.AccountIndex) < len(tx.Message.AccountKeys) && tx.Message.AccountKeys[b.AccountIndex].Equals(treasuryATA) &&
				b.Mint.Equals(gpuprice.USDCMint) && b.UiTokenAmount != nil {
				if amount, ok := new(big.Int).SetString(b.UiTokenAmount.Amount, 10); ok {
					return amount
				}
			}
		}
		return new(big.Int)
	}
	before, after := balance(res.Meta.PreTokenBalances), balance(res.Meta.PostTokenBalances)
	if after.Cmp(new(big.Int).Add(before, price)) < 0 {
		return "", "insufficient_amount", "the treasury did not receive the plan's price"
	}
	return plan, "", ""
}

// keyError is the price API's error body.
func keyError(code, message string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": message}}
}

// keyReply writes body as JSON with status.
func keyReply(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// requireKeyFor checks that the service issued key for the payment sig.
func requireKeyFor(t *testing.T, s *keyService, sig solana.Signature, key string) {
	t.Helper()
	require.NotEmpty(t, key)
	require.Equal(t, s.issuedFor(sig), key, "the key is the one the service issued for the payment")
}
