package gpuprice

import (
	"errors"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"

	"github.com/agentapis/sdk/x402"
)

// BuyKeyParams describe the payment for a key: what BuildKeyPayment signs and BuyKey sends.
type BuyKeyParams struct {
	// Plan is the plan to buy, PlanPro or PlanUnlimited; it sets the amount and the memo.
	Plan Plan
	// Payer is the wallet that pays: the USDC leaves its associated token account, and it
	// signs the transaction and pays its fee. Required.
	Payer Signer
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
	Budget *x402.Budget
}

// terms checks the purchase and returns the plan's price and memo. Every error is an
// *sdk.ValidationError naming the field.
func (p *BuyKeyParams) terms() (uint64, string, error) {
	if p == nil {
		return 0, "", invalid("purchase", "must not be nil")
	}
	amount, ok := p.Plan.Price()
	if !ok {
		return 0, "", invalid("Plan", `must be "pro" or "unlimited"`)
	}
	memo, _ := p.Plan.Memo()
	switch {
	case p.Payer == nil:
		return 0, "", invalid("Payer", "must not be nil")
	case p.Treasury.IsZero():
		return 0, "", invalid("Treasury", "is required: the service's treasury wallet has no default")
	case p.Treasury.Equals(p.Payer.PublicKey()):
		return 0, "", invalid("Treasury", "must not be the payer's own wallet")
	}
	return amount, memo, nil
}

// BuildKeyPayment returns the signed transaction that pays for p.Plan, ready for the
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
func BuildKeyPayment(p *BuyKeyParams, recentBlockhash solana.Hash) (*solana.Transaction, error) {
	amount, memo, err := p.terms()
	if err != nil {
		return nil, err
	}
	if recentBlockhash.IsZero() {
		return nil, invalid("recent blockhash", "must not be zero")
	}
	tx, err := unsignedPayment(p, amount, memo, recentBlockhash)
	if err != nil {
		return nil, err
	}
	return tx, signPayment(tx, p.Payer)
}

// unsignedPayment builds the transaction of a checked purchase, without its signature.
func unsignedPayment(p *BuyKeyParams, amount uint64, memo string, recentBlockhash solana.Hash) (*solana.Transaction, error) {
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
		ixs = append(ixs, createIdempotent(owner, to, p.Treasury))
	}
	ixs = append(ixs,
		token.NewTransferCheckedInstruction(amount, USDCDecimals, from, USDCMint, to, owner, nil).Build(),
		memoInstruction(owner, memo),
	)
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
	ata, _, err := solana.FindAssociatedTokenAddress(wallet, USDCMint)
	if err != nil {
		err = errors.New(serviceName + ": deriving the " + whose + "'s USDC account: " + err.Error())
		return solana.PublicKey{}, err
	}
	return ata, nil
}

// signPayment signs tx with the payer, its only signer, and checks the signature.
func signPayment(tx *solana.Transaction, payer Signer) error {
	message, err := tx.Message.MarshalBinary()
	if err != nil {
		return errors.New(serviceName + ": encoding the payment message: " + err.Error())
	}
	owner := payer.PublicKey()
	sig, err := payer.SignMessage(message)
	if err != nil {
		return errors.New(serviceName + ": signing the payment: " + err.Error())
	}
	if !sig.Verify(owner, message) {
		return errors.New(serviceName + ": the payer's signature does not verify with its public key")
	}
	tx.Signatures = []solana.Signature{sig}
	return nil
}

// createIdempotentData is the instruction data of the associated token account program's
// CreateIdempotent (Create is empty data or 0).
var createIdempotentData = []byte{1}

// createIdempotent returns the instruction that creates the USDC associated token account ata
// of wallet, paid by payer, and does nothing when it exists. solana-go has a builder only for
// Create, which fails when the account exists.
func createIdempotent(payer, ata, wallet solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(ata).WRITE(),
		solana.Meta(wallet),
		solana.Meta(USDCMint),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(solana.TokenProgramID),
	}, createIdempotentData)
}

// memoInstruction returns the Memo program instruction whose data is memo exactly, signed by
// signer. solana-go's memo builder puts a length byte before the text, which the Memo
// program would record as part of the memo ("\aAPI-PRO"), so the instruction is built here.
func memoInstruction(signer solana.PublicKey, memo string) solana.Instruction {
	return solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(signer).SIGNER()}, []byte(memo))
}
