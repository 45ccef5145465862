package solanafake

import (
	"github.com/gagliardetto/solana-go"
)

// ledgerView is what getTransaction reports of a transaction's accounts at one moment, before
// or after it ran: the lamports of each account key, and the token accounts among them.
type ledgerView struct {
	lamports []uint64
	tokens   []keyedTokenAccount
}

// keyedTokenAccount is a token account of a transaction, by its index among the account
// keys.
type keyedTokenAccount struct {
	index   int
	account TokenAccount
}

// view returns the ledger's present view of the accounts keys.
func (c *Cluster) view(keys []solana.PublicKey) ledgerView {
	v := ledgerView{lamports: make([]uint64, len(keys))}
	for i, k := range keys {
		v.lamports[i] = c.lamportsOf(k, c.tokens, c.lamports)
		if acc, ok := c.tokens[k]; ok {
			v.tokens = append(v.tokens, keyedTokenAccount{i, acc})
		}
	}
	return v
}
