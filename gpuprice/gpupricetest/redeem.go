package gpupricetest

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/x402/usdc"
)

// redeemRequest is the body of the redemption operation.
type redeemRequest struct {
	TxSignature string `json:"tx_signature"`
}

// redeem answers POST /v1/keys/redeem (or the WithRedeemPath path): it issues a key of the
// plan a confirmed payment bought, once per transaction signature.
func (s *Server) redeem(r *http.Request, now time.Time) (int, any) {
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	var req redeemRequest
	if err := dec.Decode(&req); err != nil {
		return fail(http.StatusBadRequest, "invalid_request", `the body must be the JSON object {"tx_signature":"<base58 signature>"}`)
	}
	if req.TxSignature == "" {
		return fail(http.StatusBadRequest, "invalid_request", "tx_signature is required")
	}
	sig, err := solana.SignatureFromBase58(req.TxSignature)
	if err != nil {
		return fail(http.StatusBadRequest, "invalid_signature", "tx_signature is not the base58 text of a 64-byte signature")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	tx, landed := s.cluster.Landed(sig)
	switch {
	case !landed:
		return fail(http.StatusNotFound, "tx_not_found", "no transaction with this signature is on the ledger")
	case s.redeemed[sig]:
		return fail(http.StatusConflict, "already_redeemed", "a key was already issued for this transaction")
	case tx.Stage == solanafake.StageProcessed:
		return fail(http.StatusConflict, "tx_not_confirmed", "the transaction is not confirmed yet; redeem it once it is")
	case tx.Err != nil:
		return fail(http.StatusUnprocessableEntity, "tx_failed", "the transaction failed on chain: "+tx.Err.Text)
	}
	plan, status, body := s.verifyPayment(tx)
	if body != nil {
		return status, body
	}
	expires := now.AddDate(0, 1, 0)
	key := s.newKey(plan, expires)
	s.redeemed[sig] = true
	return http.StatusCreated, map[string]any{
		"api_key":      key,
		"plan":         plan,
		"expires_at":   timestamp(expires),
		"tx_signature": sig.String(),
	}
}

// verifyPayment checks that a successful transaction pays for a plan: USDC transferred to
// the treasury's USDC account, a memo that is exactly one plan's text, and at least that
// plan's price in total. It returns the plan, or the status and body of the refusal.
func (s *Server) verifyPayment(tx solanafake.Landed) (Plan, int, any) {
	treasury := s.TreasuryATA()
	paid := new(big.Int)
	var toTreasury, isUSDC, otherMint bool
	for _, t := range tx.Transfers {
		if t.Mint != USDCMint {
			otherMint = true
			continue
		}
		isUSDC = true
		if t.To == treasury {
			toTreasury = true
			paid.Add(paid, t.Amount)
		}
	}
	switch {
	case toTreasury:
	case otherMint && !isUSDC:
		return refuse("wrong_mint", "the transaction transfers a token other than USDC (mint "+USDCMintAddress+")")
	case isUSDC:
		return refuse("wrong_destination", "no USDC transfer of the transaction reaches the treasury's token account "+treasury.String())
	default:
		return refuse("no_transfer", "the transaction holds no token transfer")
	}

	var plan Plan
	var seen []string
	for _, m := range tx.Memos {
		seen = append(seen, fmt.Sprintf("%q", m))
		var p Plan
		switch string(m) {
		case MemoPro:
			p = PlanPro
		case MemoUnlimited:
			p = PlanUnlimited
		default:
			continue
		}
		if plan != "" && plan != p {
			return refuse("wrong_memo", "the transaction carries the memos of two plans")
		}
		plan = p
	}
	if plan == "" {
		found := "no memo"
		if len(seen) > 0 {
			found = "the memo " + strings.Join(seen, ", ")
		}
		return refuse("wrong_memo", fmt.Sprintf("the memo must be exactly %q or %q; the transaction carries %s", MemoPro, MemoUnlimited, found))
	}
	if price := plan.price(); paid.Cmp(price) < 0 {
		return refuse("insufficient_amount", fmt.Sprintf("the transaction pays %s of USDC to the treasury; the %s plan costs %s",
			usdc.Format(paid), plan, usdc.Format(price)))
	}
	return plan, 0, nil
}

// refuse returns a refused payment.
func refuse(code, message string) (Plan, int, any) {
	status, body := fail(http.StatusUnprocessableEntity, code, message)
	return "", status, body
}
