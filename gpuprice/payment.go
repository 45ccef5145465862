package gpuprice

import (
	"errors"
	"math/big"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// BuyKeyParams describe the payment for a key: what BuildKeyPayment signs and BuyKey sends.
type BuyKeyParams struct {
	// Plan is the plan to buy, PlanPro or PlanUnlimited; it sets the amount and the memo.
	Plan Plan
	// Payer is the wallet that pays: the USDC leaves its associated token account, and it
	// signs the transaction and pays its fee. Required.
	Payer svm.Signer
	// Treasury is the service's wallet (not its token account), <TREASURY_ADDRESS> in the
	// API description; the USDC goes to its associated token account. Required: the SDK
	// knows no default, so that a payment never goes to an address the caller did not give.
	Treasury solana.PublicKey
	// CreateTreasuryAccount adds, before the transfer, an idempotent creation of the
	// treasury's USDC account (the associated token account program's CreateIdempotent),
	// paid by the payer: a no-op when it exists, a few thousandths of a SOL of rent when not.
	CreateTreasuryAccount bool
	// Budget, when set, bounds what BuyKey may spend, shared with the x402 payments that draw
	// on it (such as payer.Budget() of an *x402.Payer). Without one, BuyKey accounts the
	// payment in a budget of its own with no limit.
	Budget *budget.Budget
}

// terms checks the purchase and returns the plan's price and memo. Every error is an
// *sdk.ValidationError naming the field.
func (p *BuyKeyParams) terms() (*big.Int, string, error) {
	if p == nil {
		return nil, "", invalid("purchase", "must not be nil")
	}
	amount, ok := p.Plan.Price()
	if !ok {
		return nil, "", invalid("Plan", `must be "pro" or "unlimited"`)
	}
	memo, _ := p.Plan.Memo()
	switch {
	case p.Payer == nil:
		return nil, "", invalid("Payer", "must not be nil")
	case p.Treasury.IsZero():
		return nil, "", invalid("Treasury", "is required: the service's treasury wallet has no default")
	case p.Treasury.Equals(p.Payer.PublicKey()):
		return nil, "", invalid("Treasury", "must not be the payer's own wallet")
	}
	return amount, memo, nil
}

// BuildKeyPayment returns the signed transaction that pays for params.Plan, ready for the
// JSON-RPC sendTransaction: in order, the optional CreateIdempotent of the treasury's USDC
// account, a TransferChecked of exactly the plan's price in USDC (6 decimals) from the
// payer's associated token account to the treasury's, and a Memo instruction whose data is
// exactly the plan's memo ("API-PRO", "API-ULTRA"), signed by the payer. The payer pays the
// fee and is the only signer; its private key never leaves the Signer.
//
// The transaction is valid with recentBlockhash only (a blockhash of the last ~150 blocks,
// from getLatestBlockhash). Its first signature identifies it, and is what RedeemKey takes
// once it is confirmed. BuildKeyPayment sends nothing and reserves nothing in a budget:
// BuyKey does both. Bad input is an *sdk.ValidationError naming the field.
func BuildKeyPayment(params *BuyKeyParams, recentBlockhash solana.Hash) (*solana.Transaction, error) {
	amount, memo, err := params.terms()
	if err != nil {
		return nil, err
	}
	if recentBlockhash.IsZero() {
		return nil, invalid("recent blockhash", "must not be zero")
	}
	tx, err := unsignedPayment(params, amount, memo, recentBlockhash)
	if err != nil {
		return nil, err
	}
	return tx, signPayment(tx, params.Payer)
}

// unsignedPayment builds the transaction of a checked purchase, without its signature, from
// the Solana payment building blocks of package svm. It is where a plan's price, atomic
// units of package usdc, becomes the token program's uint64 amount with usdc.Decimals.
func unsignedPayment(p *BuyKeyParams, amount *big.Int, memo string, recentBlockhash solana.Hash) (*solana.Transaction, error) {
	owner := p.Payer.PublicKey()
	from, err := usdcAccount(owner, "payer")
	if err != nil {
		return nil, err
	}
	to, err := usdcAccount(p.Treasury, "treasury")
	if err != nil {
		return nil, err
	}
	var ixs []solana.Instruction
	if p.CreateTreasuryAccount {
		ixs = append(ixs, svm.CreateAssociatedTokenAccount(owner, to, p.Treasury, USDCMint, solana.TokenProgramID))
	}
	transfer, err := svm.TransferChecked(solana.TokenProgramID, amount.Uint64(), usdc.Decimals, from, USDCMint, to, owner)
	if err != nil {
		return nil, errors.New(serviceName + ": building the payment transaction: " + err.Error())
	}
	ixs = append(ixs, transfer, svm.Memo([]byte(memo), owner))
	tx, err := solana.NewTransaction(ixs, recentBlockhash, solana.TransactionPayer(owner))
	if err != nil {
		return nil, errors.New(serviceName + ": building the payment transaction: " + err.Error())
	}
	if n := tx.Message.Header.NumRequiredSignatures; n != 1 {
		return nil, errors.New(serviceName + ": the payment transaction needs one signature, the payer's")
	}
	return tx, nil
}

// usdcAccount returns wallet's USDC associated token account; whose names the wallet in errors.
func usdcAccount(wallet solana.PublicKey, whose string) (solana.PublicKey, error) {
	ata, err := svm.AssociatedTokenAccount(wallet, USDCMint, solana.TokenProgramID)
	if err != nil {
		err = errors.New(serviceName + ": deriving the " + whose + "'s USDC account: " + err.Error())
		return solana.PublicKey{}, err
	}
	return ata, nil
}

// signPayment signs tx with the payer, its only signer, and checks the signature.
func signPayment(tx *solana.Transaction, payer svm.Signer) error {
	if _, err := svm.SignAs(tx, payer); err != nil {
		return errors.New(serviceName + ": " + err.Error())
	}
	return nil
}
