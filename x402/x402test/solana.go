package x402test

import (
	"crypto/sha256"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
)

// duplicateWindow is how long the reference facilitator remembers a message it began to
// settle, and refuses it again as a duplicate settlement.
const duplicateWindow = 120 * time.Second

// feePayerLamports is the SOL the facilitator's fee payer starts with: 1,000 SOL pays the fees
// of every payment a test makes.
const feePayerLamports = 1_000_000_000_000

// solanaLedger is a Facilitator's Solana side: a fake cluster, the fee payer key it settles
// with, and the messages it began to settle lately.
type solanaLedger struct {
	cluster  *solanafake.Cluster
	feePayer *svm.PrivateKeySigner
	clock    sdk.Clock

	mu      sync.Mutex
	settled map[[32]byte]time.Time // message hash -> when its settlement began
}

// newSolanaLedger returns a ledger with USDC's mainnet mint and a funded fee payer.
func newSolanaLedger(clock sdk.Clock) *solanaLedger {
	signer, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	if err != nil {
		panic("x402test: a new Solana key: " + err.Error())
	}
	l := &solanaLedger{cluster: solanafake.New(solanafake.Config{Clock: clock.Now}), feePayer: signer, clock: clock,
		settled: map[[32]byte]time.Time{}}
	l.cluster.AddMint(solanafake.Mint{Address: solana.MustPublicKeyFromBase58(svm.USDCMainnet), Program: solana.TokenProgramID, Decimals: 6})
	l.cluster.FundSOL(signer.PublicKey(), feePayerLamports)
	return l
}

// isSolana reports whether address is a Solana address (base58 of 32 bytes), not an EVM one.
func isSolana(address string) bool {
	_, err := svm.ParseAddress(address)
	return err == nil
}

// FeePayer returns the facilitator's Solana fee payer, base58: the extra.feePayer of the
// Solana offers of a paywall settling with it. It pays the fee of every Solana payment.
func (f *Facilitator) FeePayer() string { return f.solana.feePayer.PublicKey().String() }

// SolanaHandler returns the JSON-RPC node of the facilitator's Solana ledger, to serve for
// the payers (Server.SolanaURL does): getAccountInfo of a mint, getLatestBlockhash,
// getBalance, getTokenAccountBalance, simulateTransaction, sendTransaction,
// getSignatureStatuses, getSignaturesForAddress, getTransaction, getBlockHeight, getSlot and
// getGenesisHash (mainnet's), consistent with the payments it settled.
func (f *Facilitator) SolanaHandler() http.Handler { return f.solana.cluster }

// AddMint adds a token mint to the Solana ledger, of the Token-2022 program when token2022 is
// true (else of the classic Token program), so that payments in it can settle. It panics on a
// malformed mint or one the ledger has.
func (f *Facilitator) AddMint(mint string, token2022 bool, decimals uint8) {
	program := solana.TokenProgramID
	if token2022 {
		program = solana.Token2022ProgramID
	}
	f.solana.cluster.AddMint(solanafake.Mint{Address: mustSolana(mint), Program: program, Decimals: decimals})
}

// FundToken adds amount of mint to owner's associated token account on the Solana ledger,
// creating the account when it does not exist (a payee's must exist before it can be paid).
func (f *Facilitator) FundToken(mint, owner string, amount uint64) {
	f.solana.cluster.FundToken(mustSolana(mint), mustSolana(owner), amount)
}

// TokenBalance returns what owner's associated token account of mint holds on the Solana
// ledger (zero when it does not exist).
func (f *Facilitator) TokenBalance(mint, owner string) uint64 {
	return f.solana.cluster.TokenBalance(mustSolana(mint), mustSolana(owner))
}

// mustSolana reads a Solana address of a test's, and panics on a malformed one.
func mustSolana(address string) solana.PublicKey {
	pk, err := svm.ParseAddress(address)
	if err != nil {
		panic("x402test: " + address + " is not a Solana address")
	}
	return pk
}

// verify checks a Solana payment as the reference facilitator does: svm.VerifyExact with
// the fee payer, then a simulation on the ledger with the fee payer's signature still empty.
func (l *solanaLedger) verify(p *wire.PaymentPayload, req wire.PaymentRequirements) (*svm.Verified, error) {
	v, err := svm.VerifyExact(p, req, []solana.PublicKey{l.feePayer.PublicKey()})
	if err != nil {
		return nil, err
	}
	if _, err := l.cluster.Simulate(v.Transaction); err != nil {
		return nil, &wire.VerifyError{Reason: svm.ReasonSimulationFailed, Message: err.Error(), Payer: v.Payer.String()}
	}
	return v, nil
}

// settleSolana verifies a Solana payment, refuses a message it began to settle within
// duplicateWindow, signs it as the fee payer and lands it on the ledger, and records the
// Settlement. As the reference facilitator does, it remembers a message as soon as it passed
// verification and was not a duplicate, before sending it: a settlement that then fails (a
// failure queued with FailNextSettle, a transaction that did not land) still refuses the same
// message as a duplicate for duplicateWindow, while the message itself, which never landed,
// would pass the simulation again. A message that landed is refused earlier, by the
// simulation (the cluster's status cache), as long as its blockhash lives.
func (f *Facilitator) settleSolana(p *wire.PaymentPayload, req wire.PaymentRequirements) (*wire.SettleResponse, error) {
	l := f.solana
	l.mu.Lock()
	defer l.mu.Unlock()
	v, err := l.verify(p, req)
	payer := ""
	if v != nil {
		payer = v.Payer.String()
	}
	var message []byte
	if err == nil {
		if message, err = v.Transaction.Message.MarshalBinary(); err != nil {
			err = &wire.VerifyError{Reason: svm.ReasonTransactionFailed, Message: err.Error(), Payer: payer}
		}
	}
	now := l.clock.Now()
	for k, at := range l.settled {
		if now.Sub(at) >= duplicateWindow {
			delete(l.settled, k)
		}
	}
	if err == nil {
		key := sha256.Sum256(message)
		if _, dup := l.settled[key]; dup {
			err = &wire.VerifyError{Reason: svm.ReasonDuplicateSettlement, Message: "this transaction is being settled or was settled already", Payer: payer}
		} else {
			l.settled[key] = now
		}
	}
	if err == nil {
		f.mu.Lock()
		err = f.nextFailure(payer)
		f.mu.Unlock()
	}
	var sig solana.Signature
	if err == nil {
		sig, err = l.land(v.Transaction, payer)
	}
	if err != nil {
		return failedReceipt(req, payer, err), err
	}
	f.mu.Lock()
	f.settlements = append(f.settlements, Settlement{From: payer, To: req.PayTo, Value: new(big.Int).SetUint64(v.Amount),
		ID: v.Transaction.Signatures[1].String(), TxHash: sig.String(), Network: req.Network, Asset: req.Asset, Time: now})
	f.mu.Unlock()
	return &wire.SettleResponse{Success: true, Transaction: sig.String(), Network: req.Network, Payer: payer,
		Amount: new(big.Int).SetUint64(v.Amount).String()}, nil
}

// land signs tx as the fee payer and lands it on the ledger, as the reference facilitator
// sends it (skipping preflight, having simulated it) and waits for it.
func (l *solanaLedger) land(tx *solana.Transaction, payer string) (solana.Signature, error) {
	if _, err := svm.SignAs(tx, l.feePayer); err != nil {
		return solana.Signature{}, &wire.VerifyError{Reason: svm.ReasonTransactionFailed, Message: err.Error(), Payer: payer}
	}
	sig, err := l.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
	if err != nil {
		return solana.Signature{}, &wire.VerifyError{Reason: svm.ReasonTransactionFailed, Message: err.Error(), Payer: payer}
	}
	landed, ok := l.cluster.Landed(sig)
	switch {
	case !ok:
		return solana.Signature{}, &wire.VerifyError{Reason: svm.ReasonTransactionFailed, Message: "the transaction did not land", Payer: payer}
	case landed.Err != nil:
		return solana.Signature{}, &wire.VerifyError{Reason: svm.ReasonTransactionFailed, Message: landed.Err.Text, Payer: payer}
	}
	return sig, nil
}
