package x402test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/ethereum/go-ethereum/common"
)

// Facilitator is an in-memory x402 facilitator for the "exact" scheme on EVM chains and on
// Solana. It verifies payments as the reference facilitators do (signatures included) and
// settles them, recording each Settlement:
//
//   - EVM: it holds token balances per address, in a single token (it does not tell assets or
//     networks apart), remembers the nonces each payer used, and settles by moving balances,
//     with a fake transaction hash;
//   - Solana: it keeps a ledger of its own, a fake cluster with USDC's mainnet mint (and the
//     mints AddMint adds) that answers the JSON-RPC a client needs (SolanaHandler); it pays
//     the fee of every payment as the fee payer FeePayer names, simulates the transaction,
//     signs it and lands it there, so balances move on that ledger.
//
// It is safe for concurrent use.
type Facilitator struct {
	mu          sync.Mutex
	clock       sdk.Clock
	balances    map[string]*big.Int          // lower-case address -> balance
	used        map[string]map[[32]byte]bool // lower-case payer -> nonces
	settlements []Settlement
	failures    []string          // reasons for the next settlements to fail
	checksums   map[string]string // lower-case address -> EIP-55 form
	solana      *solanaLedger
}

// Settlement is one payment the facilitator settled.
type Settlement struct {
	// From and To are the payer and the recipient: EIP-55 checksummed on EVM, base58
	// wallets on Solana.
	From, To string
	// Value is the amount moved, in atomic units.
	Value *big.Int
	// ID is what identifies the payment in the payer's budget: the EIP-3009 nonce (0x hex),
	// the payer's signature of a Solana transaction (base58).
	ID string
	// TxHash is the transaction returned in the receipt: a fake hash (0x hex) on EVM, the
	// transaction's signature on Solana.
	TxHash string
	// Network and Asset are the requirements' network and token contract.
	Network, Asset string
	// Time is the facilitator's clock at settlement.
	Time time.Time
}

// FacilitatorOption configures a Facilitator.
type FacilitatorOption func(*Facilitator)

// WithClock sets the facilitator's clock, used to check validity windows (default
// sdk.SystemClock()).
func WithClock(c sdk.Clock) FacilitatorOption {
	return func(f *Facilitator) { f.clock = c }
}

// NewFacilitator returns an empty facilitator: no balances, no used nonces, a Solana ledger
// with USDC's mainnet mint and nothing else.
func NewFacilitator(opts ...FacilitatorOption) *Facilitator {
	f := &Facilitator{
		clock:     sdk.SystemClock(),
		balances:  make(map[string]*big.Int),
		used:      make(map[string]map[[32]byte]bool),
		checksums: make(map[string]string),
	}
	for _, opt := range opts {
		opt(f)
	}
	f.solana = newSolanaLedger(f.clock)
	return f
}

// Fund adds amount to the USDC balance of address (a negative amount takes it away, on EVM
// only): an EVM address's balance, or a Solana wallet's USDC account on the facilitator's
// ledger. It panics on a nil amount, or a negative one for Solana.
func (f *Facilitator) Fund(address string, amount *big.Int) {
	if amount == nil {
		panic("x402test: Fund with a nil amount")
	}
	if isSolana(address) {
		if !amount.IsUint64() {
			panic("x402test: Fund of a Solana wallet takes a non-negative 64-bit amount")
		}
		f.FundToken(svm.USDCMainnet, address, amount.Uint64())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(address)
	b := f.balances[key]
	if b == nil {
		b = new(big.Int)
		f.balances[key] = b
	}
	b.Add(b, amount)
}

// Balance returns the USDC balance of address (zero when it was never funded): an EVM
// address's, or a Solana wallet's USDC account's on the facilitator's ledger.
func (f *Facilitator) Balance(address string) *big.Int {
	if isSolana(address) {
		return new(big.Int).SetUint64(f.TokenBalance(svm.USDCMainnet, address))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b := f.balances[strings.ToLower(address)]; b != nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

// Settlements returns a copy of the settlements made so far, oldest first.
func (f *Facilitator) Settlements() []Settlement {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Settlement, len(f.settlements))
	for i, s := range f.settlements {
		s.Value = new(big.Int).Set(s.Value)
		out[i] = s
	}
	return out
}

// FailNextSettle makes the next call to Settle fail with reason, after verification, without
// moving any balance; each call queues one failure. A Solana payment whose settlement failed
// so had begun to settle: as the reference facilitator does, the facilitator refuses the same
// transaction again as a duplicate settlement (svm.ReasonDuplicateSettlement) for 120 s.
func (f *Facilitator) FailNextSettle(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, reason)
}

// Verify checks that p pays req, as the reference facilitator of req's chain family does.
// EVM: evm.VerifyExact (the signature included), then that the nonce is unused and the
// payer's balance covers the amount. Solana: svm.VerifyExact with the facilitator's fee
// payer, then a simulation of the transaction on its ledger (a missing or short token
// account, a stale blockhash, a message that already landed fail it). It returns the payer's
// address; a failure is a *wire.VerifyError with the reference code.
func (f *Facilitator) Verify(p *wire.PaymentPayload, req wire.PaymentRequirements) (payer string, err error) {
	if wire.Namespace(req.Network) == "solana" {
		v, err := f.solana.verify(p, req)
		if err != nil {
			return "", err
		}
		return v.Payer.String(), nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.verifyLocked(p, req)
}

// verifyLocked is Verify of an EVM payment, with f.mu held.
func (f *Facilitator) verifyLocked(p *wire.PaymentPayload, req wire.PaymentRequirements) (string, error) {
	payer, err := evm.VerifyExact(p, req, f.clock.Now())
	if err != nil {
		return "", err
	}
	e, _ := evm.DecodeExactPayload(p) // read by VerifyExact
	auth := &e.Authorization
	key := strings.ToLower(payer)
	if f.used[key][auth.Nonce] {
		return "", &wire.VerifyError{Reason: evm.ReasonNonceAlreadyUsed, Message: "nonce already used", Payer: payer}
	}
	if bal := f.balances[key]; bal == nil || bal.Cmp(auth.Value) < 0 {
		return "", &wire.VerifyError{Reason: evm.ReasonInsufficientBalance, Message: "balance below the amount", Payer: payer}
	}
	return payer, nil
}

// Settle verifies p against req as Verify does and, atomically with that check, moves the
// amount from the payer to the recipient, marks the nonce used and records a Settlement. It
// always returns the receipt to send in PAYMENT-RESPONSE; a failed settlement also returns a
// *wire.VerifyError, and the receipt then has Success false and the reason.
func (f *Facilitator) Settle(p *wire.PaymentPayload, req wire.PaymentRequirements) (*wire.SettleResponse, error) {
	if wire.Namespace(req.Network) == "solana" {
		return f.settleSolana(p, req)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	payer, err := f.verifyLocked(p, req)
	if err == nil {
		err = f.nextFailure(payer)
	}
	if err != nil {
		return failedReceipt(req, payer, err), err
	}
	e, _ := evm.DecodeExactPayload(p) // read by verifyLocked
	auth := &e.Authorization
	from, to := strings.ToLower(payer), strings.ToLower(auth.To)
	f.balances[from].Sub(f.balances[from], auth.Value)
	if f.balances[to] == nil {
		f.balances[to] = new(big.Int)
	}
	f.balances[to].Add(f.balances[to], auth.Value)
	if f.used[from] == nil {
		f.used[from] = make(map[[32]byte]bool)
	}
	f.used[from][auth.Nonce] = true
	tx := txHash(req.Network, from, auth.Nonce)
	payer = f.checksumLocked(from)
	f.settlements = append(f.settlements, Settlement{
		From:    payer,
		To:      f.checksumLocked(to),
		Value:   new(big.Int).Set(auth.Value),
		ID:      "0x" + hex.EncodeToString(auth.Nonce[:]),
		TxHash:  tx,
		Network: req.Network,
		Asset:   req.Asset,
		Time:    f.clock.Now(),
	})
	return &wire.SettleResponse{
		Success:     true,
		Transaction: tx,
		Network:     req.Network,
		Payer:       payer,
		Amount:      auth.Value.String(),
	}, nil
}

// nextFailure returns the failure FailNextSettle queued next, if any, taking it; f.mu is held.
func (f *Facilitator) nextFailure(payer string) error {
	if len(f.failures) == 0 {
		return nil
	}
	reason := f.failures[0]
	f.failures = f.failures[1:]
	return &wire.VerifyError{Reason: reason, Message: "settlement failed", Payer: payer}
}

// failedReceipt returns the receipt of a settlement of req that failed with err.
func failedReceipt(req wire.PaymentRequirements, payer string, err error) *wire.SettleResponse {
	fail := &wire.SettleResponse{Network: req.Network, Payer: payer}
	var ve *wire.VerifyError
	if errors.As(err, &ve) {
		fail.ErrorReason, fail.ErrorMessage = ve.Reason, ve.Message
		if fail.Payer == "" {
			fail.Payer = ve.Payer
		}
	}
	return fail
}

// txHash returns a deterministic fake transaction hash for a settlement by a lower-case
// payer: a SHA-256 of the network, the payer and the nonce, as it identifies nothing on a
// chain.
func txHash(network, payer string, nonce [32]byte) string {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(network)))
	h := sha256.New()
	h.Write([]byte("x402test settlement"))
	h.Write(n[:])
	h.Write([]byte(network))
	h.Write([]byte(payer))
	h.Write(nonce[:])
	var sum [sha256.Size]byte
	return "0x" + hex.EncodeToString(h.Sum(sum[:0]))
}

// checksumLocked returns the EIP-55 form of a lower-case hex address checked by
// evm.VerifyExact, computing it once per address; f.mu must be held.
func (f *Facilitator) checksumLocked(lower string) string {
	if c, ok := f.checksums[lower]; ok {
		return c
	}
	c := common.HexToAddress(lower).Hex()
	f.checksums[lower] = c
	return c
}
