package evm

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
)

// The parts of EIP-3009 a lookup reads from a token contract.
var (
	// authorizationStateSelector selects authorizationState(address authorizer, bytes32
	// nonce) returns (bool): true once the authorization was used (or cancelled).
	authorizationStateSelector = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]
	// authorizationUsedTopic is the topic of AuthorizationUsed(address indexed authorizer,
	// bytes32 indexed nonce), emitted by the transaction that used an authorization.
	authorizationUsedTopic = common.BytesToHash(crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)")))
)

// settleSlack is how long before its reservation a payment's settlement may lie on chain
// by the chain's clock: the authorization's validAfter is its signing time less
// validAfterSkew on the payer's clock, and ExpiryMargin covers a store's clock (PostgreSQL's)
// ahead of the payer's. The search for a payment's AuthorizationUsed event starts at the
// first block whose time is at least its reservation less settleSlack.
const settleSlack = validAfterSkew*time.Second + ledger.ExpiryMargin

// Lookup looks the x402 authorizations of one EVM network up in their token contract
// (EIP-3009), through one or more JSON-RPC endpoints: a reconcile.Lookup to give to
// reconcile.WithLookup. It is safe for concurrent use; Close it when done.
//
// A release frees money, and a wrong one lets it be spent twice, so no single answer
// decides one. Each endpoint is asked, on its own, for its latest and its finalized block
// (its safe block when it names no finalized one), then for authorizationState(payer,
// nonce) of each payment at its latest block and, for a payment whose validBefore plus
// ledger.ExpiryMargin its finalized block's time has passed, at its finalized block too;
// then for the token's AuthorizationUsed events of the payments found used or releasable,
// from the first block whose time is at least the payment's reservation less ten minutes
// (its validAfter, back-dated by the payer) and ExpiryMargin, up to its latest block, in
// ranges the node accepts (halved each time it refuses one). An endpoint finds a payment:
//
//   - settled when its state reads used and its event is there: the event's transaction is
//     the Result's Transaction;
//   - unable to settle when its state reads unused at both blocks, its finalized block is
//     past validBefore plus the margin, and no event of it is there;
//   - pending when its state reads unused and its finalized block is not that far;
//   - in contradiction (a *ConflictError in Result.Err, resolving nothing) when its state
//     and its events disagree: used without an event, unused with one, or used at the
//     finalized block and unused at the latest.
//
// Across the endpoints, a payment is settled when any one proves it (state and event), and
// can no longer settle only when every endpoint says so; otherwise a contradiction or a
// failure is its Result's Err, and it stays pending. An endpoint that fails leaves every
// payment it could not resolve as it is; one that cannot be reached, or does not answer
// within the reconciler's lookup timeout, fails the whole lookup with
// reconcile.ErrUnreachable, so that the reconciler asks no more in that pass. The batches
// to an endpoint the lookup dials are checked whole: an answer missing, repeated or under an
// unknown id fails the batch (*BatchError). Answers rotated among the ids of a batch, which
// no id check can see, and the batches of a client given whole (NewLookup, WithClient),
// whose answers go-ethereum matches by id, keeping the first of a repeated one, are held
// back by the cross-check of state and events: a used authorization read unused has its
// event, an unused one read used has none.
//
// With one endpoint, the lookup still trusts that node not to lie consistently about an
// authorization's state, its AuthorizationUsed event and its finalized block's time at once:
// such a node could have a payment released that settled. Caveats says so, and every
// reconcile.Report carries it; give further endpoints of other operators (WithEndpoint,
// WithClient) to lift it. On Base, the finalized block waits for Ethereum to finalize the
// batch that holds it, typically 20 to 30 minutes behind the latest, so a payment is released
// that long after it expired at the earliest; one that settled is committed as soon as an
// endpoint's latest block holds its event.
//
// Endpoint URLs may carry a provider's access key: no error, log line or caveat quotes
// one, nor a payment's nonce.
type Lookup struct {
	rail      string // "x402 " + the CAIP-2 network
	chainID   uint64
	endpoints []*endpoint
	secrets   []string // the endpoints' URLs, scrubbed from every error
	caveats   []string
}

// The lookup is a reconcile.Lookup that says what it trusts.
var (
	_ reconcile.Lookup   = (*Lookup)(nil)
	_ reconcile.Cautious = (*Lookup)(nil)
)

// LookupOption configures a Lookup: further endpoints of the same network, and plain HTTP
// to a remote one.
type LookupOption func(*lookupConfig) error

// lookupConfig is what the options of a Lookup set.
type lookupConfig struct {
	endpoints    []endpointSource
	insecureHTTP bool
}

// endpointSource is an endpoint as given: a URL the lookup dials, or a client given whole.
type endpointSource struct {
	rawURL string
	client *rpc.Client
}

// WithEndpoint adds the JSON-RPC endpoint at rawURL, which the lookup dials and Close
// closes: a release then needs its word too, and a commit the word of any endpoint. Give
// endpoints of other operators: two URLs of one provider are one node's word.
func WithEndpoint(rawURL string) LookupOption {
	return func(c *lookupConfig) error {
		c.endpoints = append(c.endpoints, endpointSource{rawURL: rawURL})
		return nil
	}
}

// WithClient adds an endpoint through client, for a node that needs a transport or headers
// of its own (an *ethclient.Client gives its own with Client()); Close leaves it open. Its
// batch answers are matched by go-ethereum (see Lookup).
func WithClient(client *rpc.Client) LookupOption {
	return func(c *lookupConfig) error {
		if client == nil {
			return invalid("EVM client", "must not be nil")
		}
		c.endpoints = append(c.endpoints, endpointSource{client: client})
		return nil
	}
}

// WithInsecureHTTP allows endpoint URLs with plain http to hosts other than the loopback
// interface: whoever is on the path could then answer for the node, and the lookup's
// caveats say so. Without it such a URL is refused; https, and http to 127.0.0.0/8, ::1 or
// localhost, need no option.
func WithInsecureHTTP() LookupOption {
	return func(c *lookupConfig) error {
		c.insecureHTTP = true
		return nil
	}
}

// DialLookup returns the lookup of network's payments (CAIP-2, such as NetworkBase) through
// the JSON-RPC endpoint at rawURL (https; http only to the loopback interface, unless
// WithInsecureHTTP) and those opts add. A URL may carry a provider's access key: it never
// appears in an error, a log line or a caveat. Every node must serve network's chain: a
// lookup first checks each one's chain id. Close closes the connections it opened.
func DialLookup(network, rawURL string, opts ...LookupOption) (*Lookup, error) {
	return newLookup(network, endpointSource{rawURL: rawURL}, opts)
}

// NewLookup returns the lookup of network's payments (CAIP-2) through client and the
// endpoints opts add, for a node that needs a transport or headers of its own; an
// *ethclient.Client gives its own with Client(). Close leaves client open.
func NewLookup(network string, client *rpc.Client, opts ...LookupOption) (*Lookup, error) {
	if client == nil {
		return nil, invalid("EVM client", "must not be nil")
	}
	return newLookup(network, endpointSource{client: client}, opts)
}

// newLookup returns the lookup of network's payments through first and the endpoints of
// opts.
func newLookup(network string, first endpointSource, opts []LookupOption) (*Lookup, error) {
	n, err := wire.NormalizeNetwork(network)
	if err != nil {
		return nil, invalid("network", err.Error())
	}
	id, err := ChainID(n)
	if err != nil {
		return nil, invalid("network", err.Error())
	}
	cfg := &lookupConfig{endpoints: []endpointSource{first}}
	if err := httpcore.Configure("x402", cfg, opts); err != nil {
		return nil, err
	}
	l := &Lookup{rail: "x402 " + n, chainID: id}
	for _, src := range cfg.endpoints {
		if src.client == nil {
			if err := checkURL(src.rawURL, cfg.insecureHTTP); err != nil {
				return nil, err
			}
			l.secrets = append(l.secrets, src.rawURL)
		}
	}
	for i, src := range cfg.endpoints {
		e, err := openEndpoint(i+1, len(cfg.endpoints), src, l.secrets)
		if err != nil {
			_ = l.Close()
			return nil, err
		}
		l.endpoints = append(l.endpoints, e)
	}
	l.caveats = l.caveatsOf(cfg)
	return l, nil
}

// checkURL refuses an endpoint URL that is not absolute http or https, and one with plain
// http to a host off the loopback interface unless insecure allows it. Its errors never
// quote the URL.
func checkURL(rawURL string, insecure bool) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("EVM RPC URL", "must be an absolute https URL")
	}
	if u.Scheme == "http" && !insecure && !loopback(u.Hostname()) {
		return invalid("EVM RPC URL", "must be https (http only to the loopback interface, or with evm.WithInsecureHTTP)")
	}
	return nil
}

// loopback reports whether host names the loopback interface: localhost, an address of
// 127.0.0.0/8, or ::1.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// caveatsOf returns what the lookup configured by cfg still trusts.
func (l *Lookup) caveatsOf(cfg *lookupConfig) []string {
	var out []string
	if len(l.endpoints) == 1 {
		out = append(out, l.rail+": one RPC endpoint decides every release: a node that lies consistently about an "+
			"authorization's state, its AuthorizationUsed event and its finalized block's time can have a payment "+
			"that settled released (evm.WithEndpoint adds endpoints of other operators)")
	}
	for i, src := range cfg.endpoints {
		if src.client != nil || !cfg.insecureHTTP {
			continue
		}
		if u, err := url.Parse(src.rawURL); err == nil && u.Scheme == "http" && !loopback(u.Hostname()) {
			out = append(out, l.rail+": RPC endpoint "+strconv.Itoa(i+1)+" is plain HTTP off this machine "+
				"(evm.WithInsecureHTTP): whoever is on the path can answer for it")
		}
	}
	return out
}

// Caveats returns what the lookup's answers still trust: with a single endpoint, that node
// not to lie consistently about state, events and time; a remote endpoint over plain HTTP.
// A reconcile.Reconciler reports them (Report.Caveats).
func (l *Lookup) Caveats() []string { return append([]string(nil), l.caveats...) }

// Close closes the connections the lookup dialled; clients given whole stay open.
func (l *Lookup) Close() error {
	for _, e := range l.endpoints {
		e.close()
	}
	return nil
}

// Handles reports whether rail is the lookup's network.
func (l *Lookup) Handles(rail string) bool { return rail == l.rail }

// authorization is an x402 payment as its token contract knows it.
type authorization struct {
	payer, asset common.Address
	nonce        [32]byte
}

// parseAuthorization reads what the lookup needs of p.
func parseAuthorization(p ledger.Outstanding) (authorization, error) {
	var a authorization
	var err error
	if a.nonce, err = decodeHex32(p.ID); err != nil {
		return a, errors.New("x402: the payment's id is not an EIP-3009 nonce")
	}
	if a.payer, err = parseAddress(p.Payer); err != nil {
		return a, errors.New("x402: the payment records no payer address")
	}
	if a.asset, err = parseAddress(p.Asset); err != nil {
		return a, errors.New("x402: the payment records no token contract")
	}
	return a, nil
}

// query is one payment as the endpoints are asked about it.
type query struct {
	auth authorization
	// releasableAt is the earliest block time at which it may be released: its validBefore
	// plus ExpiryMargin, in Unix seconds; 0 when its expiry is unknown (never).
	releasableAt uint64
	// since is the earliest block time its settlement can have, in Unix seconds (0 when
	// unknown: from the first block).
	since uint64
}

// queryOf returns the query of p, whose authorization is a.
func queryOf(p ledger.Outstanding, a authorization) query {
	q := query{auth: a}
	if !p.Expires.IsZero() && p.Expires.Unix() > 0 {
		q.releasableAt = uint64(p.Expires.Add(ledger.ExpiryMargin).Unix())
	}
	if since := p.Reserved.Add(-settleSlack); !p.Reserved.IsZero() && since.Unix() > 0 {
		q.since = uint64(since.Unix())
	}
	return q
}

// Lookup asks every endpoint about payments, at once, and combines their findings (see
// Lookup).
func (l *Lookup) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	results := make([]reconcile.Result, len(payments))
	queries := make([]query, 0, len(payments))
	index := make([]int, 0, len(payments))
	secrets := append([]string(nil), l.secrets...)
	for i, p := range payments {
		results[i].ID = p.ID
		a, err := parseAuthorization(p)
		if err != nil {
			results[i].Err = err
			continue
		}
		queries, index = append(queries, queryOf(p, a)), append(index, i)
		secrets = append(secrets, common.Bytes2Hex(a.nonce[:]))
	}
	if len(queries) == 0 {
		return results, nil
	}
	findings := make([][]finding, len(l.endpoints))
	errs := make([]error, len(l.endpoints))
	var wg sync.WaitGroup
	for j, e := range l.endpoints {
		wg.Go(func() { findings[j], errs[j] = e.look(ctx, l.chainID, queries, secrets) })
	}
	wg.Wait()

	var failed []error
	unreachable := false
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
			unreachable = unreachable || errors.Is(err, reconcile.ErrUnreachable)
		}
	}
	if unreachable || len(failed) == len(l.endpoints) {
		return nil, errors.Join(failed...)
	}
	for k, i := range index {
		results[i].State, results[i].Transaction, results[i].Err = combine(findings, errs, k)
	}
	return results, nil
}

// combine returns what the endpoints' findings say of query k: settled when any endpoint
// proved it, unable to settle when all proved that; otherwise the first contradiction or
// failure as its error, or pending.
func combine(findings [][]finding, errs []error, k int) (reconcile.ChainState, string, error) {
	released := 0
	var failure error
	for j, fs := range findings {
		if errs[j] != nil {
			failure = cmpOr(failure, errs[j])
			continue
		}
		f := fs[k]
		switch {
		case f.err != nil:
			failure = cmpOr(failure, f.err)
		case f.state == reconcile.Settled:
			return reconcile.Settled, f.tx, nil
		case f.state == reconcile.NotSettled:
			released++
		}
	}
	switch {
	case failure != nil:
		return reconcile.Pending, "", failure
	case released == len(findings):
		return reconcile.NotSettled, "", nil
	}
	return reconcile.Pending, "", nil
}

// cmpOr returns the first of a and b that is not nil.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// isUnreachable reports whether err says the node could not be reached or did not answer
// in time: the lookup's deadline, a failure to connect or to send. An answer the lookup
// refused (*BatchError) is no such failure.
func isUnreachable(err error) bool {
	var be *BatchError
	if errors.As(err, &be) {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}
