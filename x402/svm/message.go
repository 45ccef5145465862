package svm

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// compile returns the unsigned transaction of instructions paid for by feePayer, laid out
// exactly as solana.NewTransaction lays it out (without address tables): the fee payer
// first, then the other signers, writable before read-only, then the other accounts, writable
// before read-only, each group in order of first appearance, the programs last among the
// read-only accounts. solana.NewTransaction indexes the accounts by their base58 text, which
// costs a fifth of the client-side work of an x402 payment; a transaction has a few accounts,
// so compile finds them by comparing keys. A test holds it to solana.NewTransaction's output.
func compile(feePayer solana.PublicKey, instructions []solana.Instruction, blockhash solana.Hash) (*solana.Transaction, error) {
	if len(instructions) == 0 {
		return nil, errors.New("a transaction needs at least one instruction")
	}
	var metas []solana.AccountMeta
	var programs []solana.PublicKey
	for _, ix := range instructions {
		for _, m := range ix.Accounts() {
			metas = append(metas, *m)
		}
		if p := ix.ProgramID(); !slices.Contains(programs, p) {
			programs = append(programs, p)
		}
	}
	for _, p := range programs {
		metas = append(metas, solana.AccountMeta{PublicKey: p})
	}
	rank := func(m solana.AccountMeta) int {
		switch {
		case m.IsSigner && m.IsWritable:
			return 0
		case m.IsSigner:
			return 1
		case m.IsWritable:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(metas, func(a, b solana.AccountMeta) int { return rank(a) - rank(b) })

	// One entry per key, the first after sorting, writable if any use of it is; the fee payer
	// moved (or added) to the front as a writable signer.
	keys := make([]solana.AccountMeta, 1, len(metas)+1)
	keys[0] = solana.AccountMeta{PublicKey: feePayer, IsSigner: true, IsWritable: true}
	for _, m := range metas {
		if m.PublicKey.Equals(feePayer) {
			continue
		}
		if i := slices.IndexFunc(keys, func(k solana.AccountMeta) bool { return k.PublicKey.Equals(m.PublicKey) }); i > 0 {
			keys[i].IsWritable = keys[i].IsWritable || m.IsWritable
			continue
		}
		keys = append(keys, m)
	}
	if len(keys) > 256 {
		return nil, fmt.Errorf("a transaction of %d accounts is more than a message can index", len(keys))
	}

	msg := solana.Message{RecentBlockhash: blockhash, AccountKeys: make(solana.PublicKeySlice, len(keys))}
	for i, k := range keys {
		msg.AccountKeys[i] = k.PublicKey
		switch {
		case k.IsSigner:
			msg.Header.NumRequiredSignatures++
			if !k.IsWritable {
				msg.Header.NumReadonlySignedAccounts++
			}
		case !k.IsWritable:
			msg.Header.NumReadonlyUnsignedAccounts++
		}
	}
	index := func(key solana.PublicKey) uint16 {
		return uint16(slices.IndexFunc(msg.AccountKeys, func(k solana.PublicKey) bool { return k.Equals(key) }))
	}
	msg.Instructions = make([]solana.CompiledInstruction, len(instructions))
	for i, ix := range instructions {
		data, err := ix.Data()
		if err != nil {
			return nil, fmt.Errorf("encoding instruction %d: %w", i, err)
		}
		accounts := ix.Accounts()
		c := solana.CompiledInstruction{ProgramIDIndex: index(ix.ProgramID()), Accounts: make([]uint16, len(accounts)), Data: data}
		for j, m := range accounts {
			c.Accounts[j] = index(m.PublicKey)
		}
		msg.Instructions[i] = c
	}
	return &solana.Transaction{Message: msg}, nil
}
