package svm

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// check says whether res, the transaction a node returned when asked for asked, carries p's
// id (the payer's signature) among its signatures, and when it does, whether it is p's and
// succeeded; an error when nothing can be told of it (it cannot be read, or it is not the
// transaction asked for) or when it carries p's id but is not p's. It is p's when that signature verifies over its message by the signer at its place, the wallet
// p records (Payer), and it holds exactly one TransferChecked (Token or Token-2022) that
// this wallet authorises, of p's amount and mint, from the token account p's Ref records
// to the associated token account of p's payee, and the Memo p's Ref records. What p does
// not record is not checked. The error says what differs; it quotes nothing of the
// transaction.
func (p *payment) check(res *rpc.GetTransactionResult, asked solana.Signature) (carries, succeeded bool, err error) {
	if res.Transaction == nil || res.Meta == nil {
		return false, false, errors.New("the node returned a transaction without its body or its status")
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return false, false, errors.New("the node returned a transaction that cannot be read")
	}
	if len(tx.Signatures) == 0 || tx.Signatures[0] != asked {
		return false, false, errors.New("the node returned another transaction than the one asked for")
	}
	place := -1
	for i, s := range tx.Signatures {
		if s == p.sig {
			place = i
			break
		}
	}
	if place < 0 {
		return false, false, nil
	}
	if err := p.matches(tx, place); err != nil {
		return true, false, err
	}
	return true, res.Meta.Err == nil, nil
}

// matches returns what differs between tx, which carries p's signature at place, and p.
func (p *payment) matches(tx *solana.Transaction, place int) error {
	msg := &tx.Message
	if place >= int(msg.Header.NumRequiredSignatures) || place >= len(msg.AccountKeys) {
		return errors.New("the payer's signature is not in a signer's place of the transaction")
	}
	signer := msg.AccountKeys[place]
	message, err := msg.MarshalBinary()
	if err != nil || !p.sig.Verify(signer, message) {
		return errors.New("the payer's signature does not verify over the transaction's message")
	}
	if p.p.Payer != "" && signer.String() != p.p.Payer {
		return errors.New("the transaction is signed by another wallet than the payment's payer")
	}
	var transfers int
	memo := len(p.ref.Memo) == 0
	for _, ix := range msg.Instructions {
		program, accounts, ok := resolve(msg, ix)
		if !ok {
			return errors.New("the transaction names an account it does not have")
		}
		switch {
		case program.Equals(solana.MemoProgramID):
			memo = memo || bytes.Equal(ix.Data, p.ref.Memo)
		case isTransferChecked(program, ix.Data, accounts) && accounts[3].Equals(signer):
			transfers++
			if err := p.matchesTransfer(program, ix.Data, accounts); err != nil {
				return err
			}
		}
	}
	switch {
	case transfers != 1:
		return errors.New("the transaction does not hold exactly one TransferChecked by the payer")
	case !memo:
		return errors.New("the transaction does not carry the payment's memo")
	}
	return nil
}

// matchesTransfer returns what differs between a TransferChecked of program (its data and
// accounts: source, mint, destination, authority) and what p records.
func (p *payment) matchesTransfer(program solana.PublicKey, data []byte, accounts []solana.PublicKey) error {
	source, mint, destination := accounts[0], accounts[1], accounts[2]
	switch amount := binary.LittleEndian.Uint64(data[1:9]); {
	case !p.ref.Source.IsZero() && !source.Equals(p.ref.Source):
		return errors.New("the transfer is not from the token account the payment records")
	case p.p.Asset != "" && mint.String() != p.p.Asset:
		return errors.New("the transfer is not of the payment's asset")
	case p.p.Amount != nil && (!p.p.Amount.IsUint64() || p.p.Amount.Uint64() != amount):
		return errors.New("the transfer is not of the payment's amount")
	}
	if p.p.PayTo == "" {
		return nil
	}
	payTo, err := ParseAddress(p.p.PayTo)
	if err != nil {
		return errors.New("the payment's payee is not a Solana address")
	}
	if want, err := AssociatedTokenAccount(payTo, mint, program); err != nil || !destination.Equals(want) {
		return errors.New("the transfer is not to the payee's token account")
	}
	return nil
}

// resolve returns the program and the accounts of a compiled instruction of msg; false when
// it names an index msg does not have (such as one of an address lookup table).
func resolve(msg *solana.Message, ix solana.CompiledInstruction) (solana.PublicKey, []solana.PublicKey, bool) {
	if int(ix.ProgramIDIndex) >= len(msg.AccountKeys) {
		return solana.PublicKey{}, nil, false
	}
	accounts := make([]solana.PublicKey, len(ix.Accounts))
	for i, a := range ix.Accounts {
		if int(a) >= len(msg.AccountKeys) {
			return solana.PublicKey{}, nil, false
		}
		accounts[i] = msg.AccountKeys[a]
	}
	return msg.AccountKeys[ix.ProgramIDIndex], accounts, true
}

// isTransferChecked reports whether an instruction of program with data and accounts is a
// token program's TransferChecked: its tag, a u64 amount and the decimals; source, mint,
// destination and authority.
func isTransferChecked(program solana.PublicKey, data []byte, accounts []solana.PublicKey) bool {
	return (program.Equals(solana.TokenProgramID) || program.Equals(solana.Token2022ProgramID)) &&
		len(data) >= 10 && data[0] == transferCheckedTag && len(accounts) >= 4
}
