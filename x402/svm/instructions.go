package svm

import (
	"errors"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/token"
)

// The building blocks of a Solana token payment, each built with solana-go's own functions
// where they are right, and by hand where they are not (the memo, the idempotent account
// creation): the x402 "exact" scheme and gpuprice's key purchase pay with the same ones.

// AssociatedTokenAccount returns wallet's associated token account for mint, under the
// mint's token program (Token or Token-2022, whose accounts are derived differently).
func AssociatedTokenAccount(wallet, mint, program solana.PublicKey) (solana.PublicKey, error) {
	if program.Equals(solana.TokenProgramID) {
		ata, _, err := solana.FindAssociatedTokenAddress(wallet, mint)
		return ata, err
	}
	ata, _, err := solana.FindProgramAddress([][]byte{wallet[:], program[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	return ata, err
}

// TransferChecked returns the token program's TransferChecked of amount atomic units of mint
// (with its decimals) from the source token account to the destination one, authorised by
// owner, for the mint's program (Token or Token-2022: the same instruction, another program).
func TransferChecked(program solana.PublicKey, amount uint64, decimals uint8, source, mint, destination, owner solana.PublicKey) (solana.Instruction, error) {
	if !program.Equals(solana.TokenProgramID) && !program.Equals(solana.Token2022ProgramID) {
		return nil, errors.New("the mint's program is neither Token nor Token-2022")
	}
	ix := token.NewTransferCheckedInstruction(amount, decimals, source, mint, destination, owner, nil).Build()
	if program.Equals(solana.TokenProgramID) {
		return ix, nil
	}
	data, err := ix.Data()
	if err != nil {
		return nil, err
	}
	return solana.NewInstruction(program, ix.Accounts(), data), nil
}

// Memo returns the Memo program instruction whose data is memo exactly, with signers as its
// signing accounts (none is allowed). solana-go's memo builder puts a length byte before the
// text, which the Memo program would record as part of the memo ("\aAPI-PRO"), so the
// instruction is built here.
func Memo(memo []byte, signers ...solana.PublicKey) solana.Instruction {
	accounts := make(solana.AccountMetaSlice, len(signers))
	for i, s := range signers {
		accounts[i] = solana.Meta(s).SIGNER()
	}
	return solana.NewInstruction(solana.MemoProgramID, accounts, memo)
}

// createIdempotentData is the instruction data of the associated token account program's
// CreateIdempotent (Create is empty data or 0).
var createIdempotentData = []byte{1}

// CreateAssociatedTokenAccount returns the instruction that creates wallet's associated token
// account ata for mint under program, paid by payer, and does nothing when it exists (the
// associated token account program's CreateIdempotent). solana-go has a builder only for
// Create, which fails when the account exists.
func CreateAssociatedTokenAccount(payer, ata, wallet, mint, program solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(ata).WRITE(),
		solana.Meta(wallet),
		solana.Meta(mint),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(program),
	}, createIdempotentData)
}

// ComputeUnitLimit returns the Compute Budget program's SetComputeUnitLimit of units.
func ComputeUnitLimit(units uint32) solana.Instruction {
	return computebudget.NewSetComputeUnitLimitInstruction(units).Build()
}

// ComputeUnitPrice returns the Compute Budget program's SetComputeUnitPrice, in
// micro-lamports a compute unit.
func ComputeUnitPrice(microLamports uint64) solana.Instruction {
	return computebudget.NewSetComputeUnitPriceInstruction(microLamports).Build()
}

// SignAs signs tx's message with signer, which must be one of its required signers, and puts
// the signature in its slot; the other slots keep what they hold (zeros for a fee payer that
// signs later). It checks the signature against the signer's public key, unless the signer
// is a *PrivateKeySigner, whose key was checked when it was made.
func SignAs(tx *solana.Transaction, signer Signer) (solana.Signature, error) {
	message, err := tx.Message.MarshalBinary()
	if err != nil {
		return solana.Signature{}, errors.New("encoding the transaction's message: " + err.Error())
	}
	owner := signer.PublicKey()
	slot := -1
	for i := 0; i < int(tx.Message.Header.NumRequiredSignatures) && i < len(tx.Message.AccountKeys); i++ {
		if tx.Message.AccountKeys[i].Equals(owner) {
			slot = i
			break
		}
	}
	if slot < 0 {
		return solana.Signature{}, errors.New("the signer is not one of the transaction's signers")
	}
	sig, err := signer.SignMessage(message)
	if err != nil {
		return solana.Signature{}, errors.New("signing the transaction: " + err.Error())
	}
	if _, checked := signer.(*PrivateKeySigner); !checked && !sig.Verify(owner, message) {
		return solana.Signature{}, errors.New("the signer's signature does not verify with its public key")
	}
	if n := int(tx.Message.Header.NumRequiredSignatures); len(tx.Signatures) != n {
		tx.Signatures = make([]solana.Signature, n)
	}
	tx.Signatures[slot] = sig
	return sig, nil
}
