package solanafake

import (
	"encoding/json"
	"time"

	"github.com/gagliardetto/solana-go"
)

// getLatestBlockhash produces a block and answers the blockhash at the commitment, with the
// last block height at which a transaction using it may land.
func (c *Cluster) getLatestBlockhash(params []json.RawMessage, now time.Time) (any, *Error) {
	cm, e := commitmentParam(params, 0)
	if e != nil {
		return nil, e
	}
	hash, lastValid := c.latestBlockhash(now, cm)
	return withContext(c.slot(now, cm), map[string]any{"blockhash": hash.String(), "lastValidBlockHeight": lastValid}), nil
}

// getBlockHeight answers the block height at the commitment.
func (c *Cluster) getBlockHeight(params []json.RawMessage, now time.Time) (any, *Error) {
	cm, e := commitmentParam(params, 0)
	if e != nil {
		return nil, e
	}
	return c.height(now, cm), nil
}

// getSlot answers the slot at the commitment.
func (c *Cluster) getSlot(params []json.RawMessage, now time.Time) (any, *Error) {
	cm, e := commitmentParam(params, 0)
	if e != nil {
		return nil, e
	}
	return c.slot(now, cm), nil
}

// MainnetGenesisHash is the genesis hash of Solana mainnet-beta, which the cluster answers
// getGenesisHash with, so that a lookup of mainnet payments (CAIP-2 solana:5eykt4Us...) takes
// it for mainnet.
const MainnetGenesisHash = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"

// getGenesisHash answers MainnetGenesisHash.
func (c *Cluster) getGenesisHash(_ []json.RawMessage, _ time.Time) (any, *Error) {
	return MainnetGenesisHash, nil
}

// getFeeForMessage answers the fee of a base64 message, legacy or v0: LamportsPerSignature
// per signature plus the prioritization fee of its Compute Budget instructions (without it
// when they are malformed, as Agave falls back to the default budget), or null when its
// blockhash was not given out or has expired.
func (c *Cluster) getFeeForMessage(params []json.RawMessage, now time.Time) (any, *Error) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	var m solana.Message
	if err := m.UnmarshalBase64(text); err != nil {
		return nil, invalidParams("failed to deserialize the message: " + err.Error())
	}
	head := c.slot(now, commitmentProcessed)
	for _, ci := range m.Instructions {
		if int(ci.ProgramIDIndex) >= len(m.AccountKeys) {
			return nil, invalidParams("invalid transaction message: an instruction's program index is out of range")
		}
	}
	if !c.blockhashValid(m.RecentBlockhash, now) {
		return withContext(head, nil), nil
	}
	budget, err := computeBudgetOf(&m)
	if err != nil {
		budget = computeBudget{}
	}
	return withContext(head, fee(&m, budget)), nil
}

// getMinimumBalanceForRentExemption answers the rent-exempt minimum balance of an account of
// the given data size.
func (c *Cluster) getMinimumBalanceForRentExemption(params []json.RawMessage, _ time.Time) (any, *Error) {
	var size uint64
	if e := param(params, 0, true, &size); e != nil {
		return nil, e
	}
	return RentExempt(size), nil
}
