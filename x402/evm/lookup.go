package evm

import (
	"context"
	"errors"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
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

// logBlocks is how many blocks back from the latest the lookup searches for the
// settlements' AuthorizationUsed events: about 5.5 hours of Base, and a range that many
// public endpoints accept. An older settlement is committed without its transaction.
const logBlocks = 10_000

// Lookup looks the x402 authorizations of one EVM network up in their token contracts: a
// reconcile.Lookup to give to reconcile.WithLookup. For each payment it reads the token
// contract's authorizationState(payer, nonce). True means the authorization was used: the
// payment settled, with its transaction from the contract's AuthorizationUsed event where
// the node's logs reach it (a missing log never holds a commit back). False at a block past
// validBefore means it can no longer settle; false before that, that it still could. It is
// safe for concurrent use; Close it when done.
type Lookup struct {
	rail    string // "x402 " + the CAIP-2 network
	chainID uint64
	client  *rpc.Client
	eth     *ethclient.Client
	rawURL  string      // the endpoint's URL, scrubbed from errors; "" for a client given whole
	owned   bool        // the lookup dialled client, and closes it
	checked atomic.Bool // the node was found to serve chainID
}

// The lookup is a reconcile.Lookup.
var _ reconcile.Lookup = (*Lookup)(nil)

// DialLookup returns the lookup of network's payments (CAIP-2, such as NetworkBase) through
// the JSON-RPC endpoint at rawURL (http or https). The URL may carry a provider's access
// key: it never appears in an error or a log line. The node must serve network's chain: a
// lookup first checks its chain id. Close closes the connection.
func DialLookup(network, rawURL string) (*Lookup, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, invalid("EVM RPC URL", "must be an absolute http or https URL")
	}
	client, err := rpc.DialOptions(context.Background(), rawURL)
	if err != nil {
		return nil, invalid("EVM RPC URL", "cannot be used: "+scrubText(err, rawURL))
	}
	l, err := newLookup(network, client, rawURL)
	if err != nil {
		client.Close()
		return nil, err
	}
	l.owned = true
	return l, nil
}

// NewLookup returns the lookup of network's payments (CAIP-2) through client, for a node
// that needs a transport or headers of its own; an *ethclient.Client gives its own with
// Client(). Close leaves client open.
func NewLookup(network string, client *rpc.Client) (*Lookup, error) {
	if client == nil {
		return nil, invalid("EVM client", "must not be nil")
	}
	return newLookup(network, client, "")
}

// newLookup returns the lookup of network's payments through client, whose URL, when known,
// is rawURL.
func newLookup(network string, client *rpc.Client, rawURL string) (*Lookup, error) {
	n, err := wire.NormalizeNetwork(network)
	if err != nil {
		return nil, invalid("network", err.Error())
	}
	id, err := ChainID(n)
	if err != nil {
		return nil, invalid("network", err.Error())
	}
	return &Lookup{rail: "x402 " + n, chainID: id, client: client, eth: ethclient.NewClient(client), rawURL: rawURL}, nil
}

// Close closes the connection DialLookup opened; a client given to NewLookup stays open.
func (l *Lookup) Close() error {
	if l.owned {
		l.client.Close()
	}
	return nil
}

// Handles reports whether rail is the lookup's network.
func (l *Lookup) Handles(rail string) bool { return rail == l.rail }

// callArgs are the arguments of an eth_call.
type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

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

// Lookup reads authorizationState(payer, nonce) of each payment at the latest block, in one
// JSON-RPC batch, and for those found used the transaction of their AuthorizationUsed event.
func (l *Lookup) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	if err := l.checkChain(ctx); err != nil {
		return nil, err
	}
	head, err := l.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, l.nodeError("eth_getBlockByNumber", err)
	}
	if head.Number == nil || head.Number.Sign() < 0 {
		return nil, l.nodeError("eth_getBlockByNumber", errors.New("the latest block has no number"))
	}
	block := hexutil.EncodeBig(head.Number)

	results := make([]reconcile.Result, len(payments))
	auths := make([]authorization, len(payments))
	elems := make([]rpc.BatchElem, 0, len(payments))
	index := make([]int, 0, len(payments))
	for i, p := range payments {
		results[i].ID = p.ID
		a, err := parseAuthorization(p)
		if err != nil {
			results[i].Err = err
			continue
		}
		auths[i] = a
		data := slices.Concat(authorizationStateSelector, common.LeftPadBytes(a.payer[:], 32), a.nonce[:])
		elems = append(elems, rpc.BatchElem{Method: "eth_call", Args: []any{callArgs{To: a.asset, Data: data}, block},
			Result: new(hexutil.Bytes)})
		index = append(index, i)
	}
	if len(elems) > 0 {
		if err := l.client.BatchCallContext(ctx, elems); err != nil {
			return nil, l.nodeError("eth_call", err)
		}
	}
	var used []int
	for k, e := range elems {
		i := index[k]
		if e.Error != nil {
			results[i].Err = l.nodeError("eth_call", e.Error)
			continue
		}
		settled, err := decodeBool(*e.Result.(*hexutil.Bytes))
		if err != nil {
			results[i].Err = l.nodeError("eth_call", err)
			continue
		}
		expires := payments[i].Expires
		switch {
		case settled:
			results[i].State = reconcile.Settled
			used = append(used, i)
		case !expires.IsZero() && expires.Unix() > 0 && head.Time >= uint64(expires.Unix()):
			// The contract refuses an authorization at a block whose time is not before
			// validBefore, and block times never go back.
			results[i].State = reconcile.NotSettled
		default:
			results[i].State = reconcile.Pending
		}
	}
	l.settlements(ctx, head.Number, auths, used, results)
	return results, nil
}

// decodeBool decodes the ABI encoding of a bool: 32 bytes, all zero but the last, 0 or 1.
func decodeBool(b []byte) (bool, error) {
	if len(b) != 32 {
		return false, errors.New("the answer is " + strconv.Itoa(len(b)) + " bytes, not an ABI bool")
	}
	if b[31] > 1 || slices.ContainsFunc(b[:31], func(c byte) bool { return c != 0 }) {
		return false, errors.New("the answer is not an ABI bool")
	}
	return b[31] == 1, nil
}

// checkChain makes sure, once, that the node serves the lookup's chain: on another chain
// every authorization would read unused.
func (l *Lookup) checkChain(ctx context.Context) error {
	if l.checked.Load() {
		return nil
	}
	id, err := l.eth.ChainID(ctx)
	if err != nil {
		return l.nodeError("eth_chainId", err)
	}
	if !id.IsUint64() || id.Uint64() != l.chainID {
		return l.nodeError("eth_chainId", errors.New("the node serves chain "+id.String()+", not "+strconv.FormatUint(l.chainID, 10)))
	}
	l.checked.Store(true)
	return nil
}

// settlements sets the Transaction of the used authorizations (indexes into auths and
// results) from the AuthorizationUsed events of the last logBlocks blocks up to head. It is
// best effort: a node that refuses the range or fails leaves them without one.
func (l *Lookup) settlements(ctx context.Context, head *big.Int, auths []authorization, used []int, results []reconcile.Result) {
	if len(used) == 0 {
		return
	}
	var assets []common.Address
	var payers, nonces []common.Hash
	seenAsset, seenPayer := map[common.Address]bool{}, map[common.Address]bool{}
	for _, i := range used {
		a := auths[i]
		if !seenAsset[a.asset] {
			seenAsset[a.asset] = true
			assets = append(assets, a.asset)
		}
		if !seenPayer[a.payer] {
			seenPayer[a.payer] = true
			payers = append(payers, common.BytesToHash(a.payer[:]))
		}
		nonces = append(nonces, a.nonce)
	}
	from := new(big.Int).Sub(head, big.NewInt(logBlocks))
	if from.Sign() < 0 {
		from.SetInt64(0)
	}
	logs, err := l.eth.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: from, ToBlock: head, Addresses: assets,
		Topics: [][]common.Hash{{authorizationUsedTopic}, payers, nonces}})
	if err != nil {
		return
	}
	txs := make(map[authorization]string, len(logs))
	for _, lg := range logs {
		if lg.Removed || len(lg.Topics) != 3 || lg.Topics[0] != authorizationUsedTopic {
			continue
		}
		a := authorization{payer: common.BytesToAddress(lg.Topics[1][:]), asset: lg.Address, nonce: lg.Topics[2]}
		txs[a] = lg.TxHash.Hex()
	}
	for _, i := range used {
		results[i].Transaction = txs[auths[i]]
	}
}

// nodeError is a failure of a node, its text scrubbed of the node's URL.
type nodeError struct {
	method string
	text   string
	cause  error // one of nodeSentinels, when the failure is one
}

// nodeSentinels are the failures a nodeError unwraps to: the ends of a context, and a batch
// the node left unanswered. Other causes are not kept, since they may quote the node's URL.
var nodeSentinels = []error{context.Canceled, context.DeadlineExceeded, rpc.ErrMissingBatchResponse, rpc.ErrNoResult}

// Error names the method and the failure.
func (e *nodeError) Error() string { return "x402: " + e.method + ": " + e.text }

// Unwrap returns the sentinel of the failure, if it is one of nodeSentinels.
func (e *nodeError) Unwrap() error { return e.cause }

// nodeError returns err of a call of method, scrubbed of the node's URL.
func (l *Lookup) nodeError(method string, err error) error {
	e := &nodeError{method: method, text: scrubText(err, l.rawURL)}
	for _, c := range nodeSentinels {
		if errors.Is(err, c) {
			e.cause = c
			break
		}
	}
	return e
}

// scrubText returns the text of err without the URL it was sent to (rawURL, when known, and
// the URL net/http quotes), which may carry a provider's access key.
func scrubText(err error, rawURL string) string {
	secrets := []string{rawURL}
	var ue *url.Error
	if errors.As(err, &ue) {
		secrets = append(secrets, ue.URL)
	}
	return httpcore.Scrub(err.Error(), secrets...)
}
