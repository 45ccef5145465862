package svm

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
)

// PurchaseRail is the rail of gpuprice's key purchases in a budget: a Solana payment whose
// payer pays its own fee, so that the payer's signature is the transaction's id.
const PurchaseRail = "solana"

// maxStatusSignatures is the most signatures one getSignatureStatuses call may ask for.
const maxStatusSignatures = 256

// historyPages bounds the pages of a token account's history one lookup reads (1,000
// signatures a page, or fewer if the node pages shorter), and historyMargin how far before a
// payment's reservation it looks: the chain's block times and the budget store's clock may
// differ by that much.
const (
	historyPages  = 10
	historyMargin = 10 * time.Minute
)

// Lookup looks Solana payments up on one node or several, so that a reconcile.Reconciler
// resolves the ones a budget holds in doubt (reconcile.WithLookup): the x402 payments of the
// networks given with ForNetworks, and gpuprice's key purchases (PurchaseRail).
//
// Each node is read on its own, and every read a release rests on is at the "finalized"
// commitment: the block height; the statuses of the payments' ids (getSignatureStatuses,
// searching the node's whole history: a gpuprice purchase's id is its transaction's), of
// which only a finalized one lets a failed transaction count as final; and the payer's token
// account's history (getSignaturesForAddress, followed page by page back to before the
// payment's reservation, with minContextSlot at the finalized height, so that a node whose
// history lags the height it claimed fails instead of showing too little) with its
// transactions (getTransaction). An x402 payment's id is the payer's signature, not the
// transaction's (the facilitator's fee-payer signature is), so an x402 payment is always
// searched in that history; a purchase is searched there before it is released. While a
// payment could still land, its history is read at "confirmed", to commit it as soon as it
// landed. A payment whose Ref records no token account (a hold of an earlier release) cannot
// be searched: a purchase is then released on its statuses alone, an x402 payment never.
//
// A transaction counts as the payment's only once checked: it carries the payer's
// signature, which verifies over its message by the wallet the payment records, a
// TransferChecked by that wallet of the payment's amount and mint from the account its Ref
// records to the payee's associated token account, and the memo its Ref records. One that
// succeeded settled the payment (reconcile.Settled, with its transaction id in
// Result.Transaction when that is not the payment's id); one that failed, read at
// "finalized", failed (reconcile.Failed).
//
// A payment is Settled when any node found its checked transaction succeeded and no node
// contradicts it. It is NotSettled only when every node, at its own finalized height past
// the last block height at which the payment could land (Ref.LastValid), found no trace of
// it, and Failed only when every node found it failed. Nodes that contradict each other
// (one found the transaction, another no trace of it past that height, or they found
// different outcomes) resolve nothing: the payment's Result carries a *ConflictError. A
// node's answers that contradict each other (a status whose transaction the node does not
// return, or returns in another slot or with another outcome, as a statuses answer in
// another order than the signatures asked gives) are the node's failure. A node that fails
// leaves every payment it would have to agree on as it is: with one node the call fails;
// with several, its failure is the error (a *NodeError) of each payment not found settled.
//
// Each call of a node is bounded by its WithCallTimeout; the nodes are asked at the same
// time, so a dead node costs one call's bound. Errors never quote a payment's signature nor
// a node's URL. A Lookup is safe for concurrent use.
type Lookup struct {
	nodes    []*endpoint
	rails    map[string]bool // "x402 " + network, and PurchaseRail
	networks []string        // the x402 networks, whose genesis hash every node must have
}

// The lookup is a reconcile.Lookup.
var _ reconcile.Lookup = (*Lookup)(nil)

// LookupOption configures a Lookup.
type LookupOption func(*Lookup) error

// ForNetworks makes the lookup handle the x402 payments of networks (CAIP-2, such as
// NetworkMainnet), whose cluster every node must serve: the first lookup of an x402 payment
// on a node checks the node's genesis hash. A network that is not a Solana one in CAIP-2
// form is a *sdk.ValidationError.
func ForNetworks(networks ...string) LookupOption {
	return func(l *Lookup) error {
		for _, n := range networks {
			c, err := wire.NormalizeNetwork(n)
			if err != nil || wire.Namespace(c) != "solana" {
				return invalid("network", strconv.Quote(n)+" is not a Solana network in CAIP-2 form")
			}
			if !l.rails["x402 "+c] {
				l.rails["x402 "+c] = true
				l.networks = append(l.networks, c)
			}
		}
		return nil
	}
}

// WithNodes adds nodes to ask besides the one given to NewLookup, best each of another
// provider: a release then needs every node to agree, and a node that lies about a payment
// is caught by the others (see Lookup). A nil node, or one given twice (the same *Node, or
// DialNode's of the same URL), is a *sdk.ValidationError.
func WithNodes(more ...*Node) LookupOption {
	return func(l *Lookup) error {
		for _, n := range more {
			if n == nil {
				return invalid("Solana node", "must not be nil")
			}
			for _, e := range l.nodes {
				if e.node == n || (n.rawURL != "" && e.node.rawURL == n.rawURL) {
					return invalid("Solana node", "is given twice: each node must be another endpoint")
				}
			}
			l.nodes = append(l.nodes, &endpoint{node: n})
		}
		return nil
	}
}

// NewLookup returns the lookup of Solana payments on node, and on the nodes WithNodes adds:
// gpuprice's key purchases, and the x402 payments of the networks ForNetworks names. A nil
// node or an invalid option is a *sdk.ValidationError.
func NewLookup(node *Node, opts ...LookupOption) (*Lookup, error) {
	if node == nil {
		return nil, invalid("Solana node", "must not be nil")
	}
	l := &Lookup{nodes: []*endpoint{{node: node}}, rails: map[string]bool{PurchaseRail: true}}
	for _, opt := range opts {
		if err := opt(l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Handles reports whether rail is PurchaseRail or one of the lookup's x402 networks.
func (l *Lookup) Handles(rail string) bool { return l.rails[rail] }

// singleNodeCaveat is what a lookup of one node still trusts.
const singleNodeCaveat = "svm: payments are looked up on one Solana node: a node that lies consistently about " +
	"its finalized block height, the statuses of signatures and the token accounts' history at once can have a " +
	"payment that landed released; svm.WithNodes adds nodes of other providers, which must all agree"

// Caveats says what the lookup still trusts, for a reconciler's report: with one node, that
// node's consistency; nothing (nil) when several nodes are asked.
func (l *Lookup) Caveats() []string {
	if len(l.nodes) > 1 {
		return nil
	}
	return []string{singleNodeCaveat}
}

// service returns the name the lookup's errors start with: its first node's.
func (l *Lookup) service() string { return l.nodes[0].node.service }

// Lookup looks payments up; see Lookup.
func (l *Lookup) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	results := make([]reconcile.Result, len(payments))
	secrets := make([]string, len(payments))
	batch := make([]*payment, 0, len(payments))
	for i := range payments {
		p := &payments[i]
		results[i].ID, secrets[i] = p.ID, p.ID
		sig, err := solana.SignatureFromBase58(p.ID)
		if err != nil {
			results[i].Err = errors.New(l.service() + ": the payment's id is not a Solana signature")
			continue
		}
		batch = append(batch, newPayment(i, p, sig))
	}
	if len(batch) == 0 {
		return results, nil
	}

	readings := make([]reading, len(l.nodes))
	var wg sync.WaitGroup
	for k, e := range l.nodes {
		wg.Go(func() { readings[k] = e.read(ctx, l.networks, batch) })
	}
	wg.Wait()
	failed := make([]error, len(l.nodes)) // each node's failure, named
	var failures []error
	for k := range readings {
		if readings[k].err != nil {
			failed[k] = l.nodeError(k, readings[k].err, secrets)
			failures = append(failures, failed[k])
		}
	}
	if len(failures) == len(l.nodes) {
		return nil, join(failures)
	}
	views := make([]sighting, len(l.nodes))
	for j, p := range batch {
		for k := range readings {
			switch {
			case failed[k] != nil:
				views[k] = sighting{err: failed[k]}
			default:
				views[k] = readings[k].sightings[j]
				if views[k].err != nil {
					views[k].err = l.nodeError(k, views[k].err, secrets)
				}
			}
		}
		r := &results[p.index]
		r.State, r.Transaction, r.Err = l.judge(p, views)
	}
	return results, nil
}

// judge returns what the nodes' sightings of p say together: its state, the transaction that
// settled it where that is not its id, or the error that leaves it as it is (see Lookup).
func (l *Lookup) judge(p *payment, views []sighting) (reconcile.ChainState, string, error) {
	var succeeded, failed, found, unseenPast []int
	var errs []error
	var tx solana.Signature
	differ := false
	for k, v := range views {
		switch {
		case v.err != nil:
			errs = append(errs, v.err)
		case v.seen == landed, v.seen == failedFinal:
			if v.seen == landed {
				succeeded = append(succeeded, k)
			} else {
				failed = append(failed, k)
			}
			found = append(found, k)
			differ = differ || (!tx.IsZero() && v.tx != tx)
			tx = v.tx
		case v.seen == unseen && v.past:
			unseenPast = append(unseenPast, k)
		}
	}
	differ = differ || (len(succeeded) > 0 && len(failed) > 0)
	if len(found) > 0 && (len(unseenPast) > 0 || differ) {
		return reconcile.Pending, "", &ConflictError{Service: l.service(), Landed: found, Unseen: unseenPast, Differ: differ}
	}
	switch {
	case len(succeeded) > 0:
		if tx == p.sig {
			return reconcile.Settled, "", nil
		}
		return reconcile.Settled, tx.String(), nil
	case len(errs) > 0:
		return reconcile.Pending, "", join(errs)
	case len(failed) == len(views):
		return reconcile.Failed, "", nil
	case len(unseenPast) == len(views):
		return reconcile.NotSettled, "", nil
	}
	return reconcile.Pending, "", nil
}

// join returns the one error of errs, or all of them joined.
func join(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// nodeError returns err, a failure of the lookup's node k, with the payments' ids removed
// from its texts; named by its node when the lookup has several.
func (l *Lookup) nodeError(k int, err error, secrets []string) error {
	err = scrub(err, secrets)
	if len(l.nodes) == 1 {
		return err
	}
	return &NodeError{Node: k, Err: err}
}

// scrub returns err with each of secrets (the payments' ids, signatures) removed from every
// text it carries.
func scrub(err error, secrets []string) error {
	var rerr *RPCError
	if errors.As(err, &rerr) {
		return rerr.Scrubbed(secrets...)
	}
	if errors.Is(err, errNoHeight) || errors.Is(err, errNoSource) {
		return err // they quote nothing
	}
	return errors.New(httpcore.Scrub(err.Error(), secrets...))
}

// NodeError reports the failure of one of a lookup's several nodes, for a payment it left
// as it is: the node failed or timed out, answered something it contradicts itself with, or
// could not say what became of the payment. The other nodes' answers could not resolve the
// payment without it.
type NodeError struct {
	// Node is the node's place: 0 for the node given to NewLookup, then those of WithNodes
	// in their order, from 1.
	Node int
	// Err is the node's failure.
	Err error
}

// Error names the node by its place and says what failed.
func (e *NodeError) Error() string {
	return "Solana node " + strconv.Itoa(e.Node) + ": " + e.Err.Error()
}

// Unwrap returns the node's failure.
func (e *NodeError) Unwrap() error { return e.Err }

// ConflictError reports a payment whose nodes contradict each other: one found its
// transaction landed while another found no trace of it at a finalized block height past
// the last one at which it could land, or they found it landed differently. Nothing is
// committed or released on such answers: one of the nodes is wrong, or lies. The nodes are
// named by their places, as in NodeError.
type ConflictError struct {
	// Service names who reports it ("x402", "gpuprice"), the start of its text.
	Service string
	// Landed lists the nodes that found the payment's transaction landed.
	Landed []int
	// Unseen lists the nodes that found no trace of it past its last valid block height.
	Unseen []int
	// Differ reports nodes that found different transactions for it, or the same one
	// succeeded on one and failed on another.
	Differ bool
}

// Error says which nodes said what.
func (e *ConflictError) Error() string {
	msg := e.Service + ": the Solana nodes contradict each other about a payment: " + nodeList(e.Landed) +
		" found its transaction landed"
	if e.Differ {
		msg += ", with different transactions or outcomes"
	}
	if len(e.Unseen) > 0 {
		msg += ", " + nodeList(e.Unseen) + " found no trace of it past its last valid block height"
	}
	return msg + "; it is neither committed nor released"
}

// nodeList names nodes by their places: "node 0", "nodes 0, 2".
func nodeList(nodes []int) string {
	s := "node"
	if len(nodes) > 1 {
		s += "s"
	}
	for i, n := range nodes {
		if i > 0 {
			s += ","
		}
		s += " " + strconv.Itoa(n)
	}
	return s
}
