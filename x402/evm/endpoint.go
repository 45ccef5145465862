package evm

import (
	"context"
	"errors"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/reconcile"
)

// The block tags a lookup reads releases at: the finalized block, or the safe block of a
// node that names no finalized one.
const (
	tagFinalized = "finalized"
	tagSafe      = "safe"
)

// endpoint is one JSON-RPC node of a Lookup, with what it learnt of the node: that it
// serves the chain, the widest range of logs it accepts, and where its last search by time
// ended.
type endpoint struct {
	n         int    // its place among the lookup's endpoints, from 1
	label     string // how its errors name it: "" when it is the lookup's only one
	client    *rpc.Client
	transport *http.Transport // the lookup's own, when it dialled the endpoint
	checked   atomic.Bool     // the node was found to serve the lookup's chain

	mu     sync.Mutex
	window uint64       // the widest log range to ask for; 0 until the node refused one
	hints  []blockPoint // blocks the last search by time read, either side of its time
}

// openEndpoint returns the n-th of total endpoints: src's client, or one dialled to src's
// URL through a transport that checks every batch answer's ids (idCheck). secrets are
// scrubbed from its errors.
func openEndpoint(n, total int, src endpointSource, secrets []string) (*endpoint, error) {
	e := &endpoint{n: n, client: src.client}
	if total > 1 {
		e.label = "RPC endpoint " + strconv.Itoa(n) + ": "
	}
	if src.client != nil {
		return e, nil
	}
	e.transport = httpcore.DefaultTransport()
	client, err := rpc.DialOptions(context.Background(), src.rawURL,
		rpc.WithHTTPClient(&http.Client{Transport: idCheck{next: e.transport}}))
	if err != nil {
		return nil, invalid("EVM RPC URL", "cannot be used: "+scrubText(err, secrets))
	}
	e.client = client
	return e, nil
}

// close closes what the lookup opened for the endpoint.
func (e *endpoint) close() {
	if e.transport != nil {
		e.client.Close()
		e.transport.CloseIdleConnections()
	}
}

// finding is what one endpoint found of one payment.
type finding struct {
	state reconcile.ChainState
	tx    string // the settling transaction, when settled
	err   error  // a failed call or a contradiction: the finding says nothing
}

// blockPoint is a block's number and time (Unix seconds).
type blockPoint struct{ number, time uint64 }

// blockHeader is what the lookup reads of a block.
type blockHeader struct {
	Number *hexutil.Big    `json:"number"`
	Time   *hexutil.Uint64 `json:"timestamp"`
}

// point returns h's number and time; an error when h is missing or lacks either.
func (h *blockHeader) point() (blockPoint, error) {
	if h == nil {
		return blockPoint{}, errors.New("the node has no such block")
	}
	if h.Number == nil || h.Time == nil || !(*big.Int)(h.Number).IsUint64() {
		return blockPoint{}, errors.New("the block has no number or time")
	}
	return blockPoint{number: (*big.Int)(h.Number).Uint64(), time: uint64(*h.Time)}, nil
}

// look finds out what the endpoint's node says of qs (see Lookup). An error means the
// endpoint found nothing; a finding's own error, that it found nothing of that payment.
func (e *endpoint) look(ctx context.Context, chainID uint64, qs []query, secrets []string) ([]finding, error) {
	if err := e.checkChain(ctx, chainID); err != nil {
		return nil, e.nodeError("eth_chainId", err, secrets)
	}
	latest, final, err := e.heads(ctx)
	if err != nil {
		return nil, e.nodeError("eth_getBlockByNumber", err, secrets)
	}

	// The state of each payment at the latest block, and of those the finalized block's time
	// may release at the finalized block too, in one batch.
	elems := make([]rpc.BatchElem, 0, 2*len(qs))
	atLatest := make([]int, len(qs)) // the index in elems of the read at the latest block
	atFinal := make([]int, len(qs))  // the index in elems of the read at the finalized block, or -1
	for k, q := range qs {
		atLatest[k] = len(elems)
		elems = append(elems, stateCall(q.auth, latest.number))
		atFinal[k] = -1
		if q.releasableAt != 0 && final.time >= q.releasableAt {
			atFinal[k] = len(elems)
			elems = append(elems, stateCall(q.auth, final.number))
		}
	}
	if err := e.client.BatchCallContext(ctx, elems); err != nil {
		return nil, e.nodeError("eth_call", err, secrets)
	}
	findings := make([]finding, len(qs))
	var candidates []int // the payments whose events decide: used, or releasable
	for k := range qs {
		usedNow, err := usedIn(elems[atLatest[k]])
		if err != nil {
			findings[k].err = e.nodeError("eth_call", err, secrets)
			continue
		}
		usedFinal := false
		if atFinal[k] >= 0 {
			if usedFinal, err = usedIn(elems[atFinal[k]]); err != nil {
				findings[k].err = e.nodeError("eth_call", err, secrets)
				continue
			}
		}
		switch {
		case usedNow:
			findings[k].state = reconcile.Settled
			candidates = append(candidates, k)
		case usedFinal:
			findings[k].err = e.conflict("authorizationState reads used at the finalized block and unused at the latest")
		case atFinal[k] >= 0:
			findings[k].state = reconcile.NotSettled
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		return findings, nil
	}

	since := qs[candidates[0]].since
	for _, k := range candidates {
		since = min(since, qs[k].since)
	}
	from, err := e.firstBlockFrom(ctx, since, latest, final)
	if err != nil {
		return nil, e.nodeError("eth_getBlockByNumber", err, secrets)
	}
	events, err := e.events(ctx, from, latest.number, qs, candidates)
	if err != nil {
		return nil, e.nodeError("eth_getLogs", err, secrets)
	}
	for _, k := range candidates {
		tx, found := events[qs[k].auth]
		switch {
		case findings[k].state == reconcile.Settled && found:
			findings[k].tx = tx
		case findings[k].state == reconcile.Settled:
			findings[k] = finding{err: e.conflict("authorizationState reads used, but the node has no AuthorizationUsed event of it")}
		case found:
			findings[k] = finding{err: e.conflict("authorizationState reads unused, but the node has its AuthorizationUsed event")}
		}
	}
	return findings, nil
}

// checkChain makes sure, once, that the node serves chainID: on another chain every
// authorization would read unused.
func (e *endpoint) checkChain(ctx context.Context, chainID uint64) error {
	if e.checked.Load() {
		return nil
	}
	var id hexutil.Big
	if err := e.client.CallContext(ctx, &id, "eth_chainId"); err != nil {
		return err
	}
	if got := (*big.Int)(&id); !got.IsUint64() || got.Uint64() != chainID {
		return errors.New("the node serves chain " + got.String() + ", not " + strconv.FormatUint(chainID, 10))
	}
	e.checked.Store(true)
	return nil
}

// heads reads the node's latest block and its finalized one, in one batch, and checks that
// the finalized is not ahead of the latest. A node that names no finalized block (an error,
// or none) is asked again for its safe block; it is asked for the finalized one first at
// every lookup, so that a passing failure never leaves the lookup on the safe block.
func (e *endpoint) heads(ctx context.Context) (latest, final blockPoint, err error) {
	for tag := tagFinalized; ; tag = tagSafe {
		var l, f *blockHeader
		batch := []rpc.BatchElem{
			{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &l},
			{Method: "eth_getBlockByNumber", Args: []any{tag, false}, Result: &f},
		}
		if err := e.client.BatchCallContext(ctx, batch); err != nil {
			return latest, final, err
		}
		if batch[0].Error != nil {
			return latest, final, batch[0].Error
		}
		if latest, err = l.point(); err != nil {
			return latest, final, errors.New("the latest block: " + err.Error())
		}
		if batch[1].Error != nil || f == nil {
			if tag == tagFinalized {
				continue
			}
			return latest, final, errors.New("the node names neither a finalized nor a safe block")
		}
		if final, err = f.point(); err != nil {
			return latest, final, errors.New("the " + tag + " block: " + err.Error())
		}
		if final.number > latest.number || final.time > latest.time {
			return latest, final, errors.New("the node's " + tag + " block is ahead of its latest")
		}
		return latest, final, nil
	}
}

// callArgs are the arguments of an eth_call.
type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

// stateCall returns the call of authorizationState(payer, nonce) of a at block.
func stateCall(a authorization, block uint64) rpc.BatchElem {
	data := slices.Concat(authorizationStateSelector, common.LeftPadBytes(a.payer[:], 32), a.nonce[:])
	return rpc.BatchElem{Method: "eth_call", Args: []any{callArgs{To: a.asset, Data: data}, hexutil.EncodeUint64(block)},
		Result: new(hexutil.Bytes)}
}

// usedIn returns what a call of authorizationState answered: whether the authorization was
// used.
func usedIn(e rpc.BatchElem) (bool, error) {
	if e.Error != nil {
		return false, e.Error
	}
	return decodeBool(*e.Result.(*hexutil.Bytes))
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

// firstBlockFrom returns a block at or before the first one whose time is at least since,
// where the search for events of payments whose settlements cannot be older starts: 0 when
// since is 0, the block after final when final is older than since. It searches the blocks
// up to final by their time, from the bracket the last search left (blocks up to a
// finalized one never change): it steps back from final by the blocks' pace until a block
// older than since (doubling the step each time it falls short), then guesses within the
// bracket from the times at its ends, halving the bracket instead after a guess that did not
// halve it: two or three headers on a chain of regular blocks.
func (e *endpoint) firstBlockFrom(ctx context.Context, since uint64, latest, final blockPoint) (uint64, error) {
	switch {
	case since == 0:
		return 0, nil
	case final.time < since:
		return final.number + 1, nil
	case final.number > math.MaxInt64/2: // no chain has that many blocks, and the steps below double
		return 0, nil
	}
	// lo is a block older than since (-1 until one is known), hi one at least as new.
	lo, loTime := int64(-1), uint64(0)
	hi, hiTime := int64(final.number), final.time
	e.mu.Lock()
	hints := e.hints
	e.mu.Unlock()
	for _, p := range hints {
		if p.time >= since && int64(p.number) < hi {
			hi, hiTime = int64(p.number), p.time
		}
	}
	for _, p := range hints {
		if p.time < since && int64(p.number) > lo && int64(p.number) < hi {
			lo, loTime = int64(p.number), p.time
		}
	}
	pace := 1.0 // seconds a block
	if latest.number > final.number && latest.time > final.time {
		pace = float64(latest.time-final.time) / float64(latest.number-final.number)
	}
	step := hi // how far back from hi to look for a block older than since
	if back := math.Ceil(float64(hiTime-since)/pace) + 1; back < float64(hi) {
		step = int64(back)
	}
	for ; lo < 0 && hi > 0; step = min(2*step, hi) {
		guess := hi - min(step, hi)
		p, err := e.block(ctx, guess)
		if err != nil {
			return 0, err
		}
		if p.time < since {
			lo, loTime = guess, p.time
		} else {
			hi, hiTime = guess, p.time
		}
	}
	halve := false
	for hi-lo > 1 {
		guess := lo + (hi-lo)/2
		if !halve {
			guess = lo + int64(math.Ceil(float64(since-loTime)*float64(hi-lo)/float64(hiTime-loTime)))
		}
		guess = min(max(guess, lo+1), hi-1)
		p, err := e.block(ctx, guess)
		if err != nil {
			return 0, err
		}
		width := hi - lo
		if p.time < since {
			lo, loTime = guess, p.time
		} else {
			hi, hiTime = guess, p.time
		}
		halve = hi-lo > width/2
	}
	hints = []blockPoint{{number: uint64(hi), time: hiTime}}
	if lo >= 0 {
		hints = append(hints, blockPoint{number: uint64(lo), time: loTime})
	}
	e.mu.Lock()
	e.hints = hints
	e.mu.Unlock()
	return uint64(lo + 1), nil
}

// block reads the number and time of block n.
func (e *endpoint) block(ctx context.Context, n int64) (blockPoint, error) {
	var h *blockHeader
	if err := e.client.CallContext(ctx, &h, "eth_getBlockByNumber", hexutil.EncodeUint64(uint64(n)), false); err != nil {
		return blockPoint{}, err
	}
	p, err := h.point()
	if err != nil {
		return p, errors.New("block " + strconv.FormatInt(n, 10) + ": " + err.Error())
	}
	return p, nil
}

// logFilter is the filter of an eth_getLogs.
type logFilter struct {
	FromBlock string           `json:"fromBlock"`
	ToBlock   string           `json:"toBlock"`
	Address   []common.Address `json:"address"`
	Topics    [][]common.Hash  `json:"topics"`
}

// logEntry is what the lookup reads of a log.
type logEntry struct {
	Address     common.Address  `json:"address"`
	Topics      []common.Hash   `json:"topics"`
	BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	TxHash      *common.Hash    `json:"transactionHash"`
	Removed     bool            `json:"removed"`
}

// events returns the transactions of the AuthorizationUsed events of the payments qs[ks]
// from block from to block to, by authorization. It asks for the whole range at first, and
// for half the range each time the node refuses one (a JSON-RPC error, as a node answers a
// range or a result too large), and keeps asking for ranges that wide, in this lookup and
// the next ones; a node that refuses a single block fails.
func (e *endpoint) events(ctx context.Context, from, to uint64, qs []query, ks []int) (map[authorization]string, error) {
	filter := logFilter{Topics: [][]common.Hash{{authorizationUsedTopic}, nil, nil}}
	wanted := make(map[authorization]bool, len(ks))
	for _, k := range ks {
		a := qs[k].auth
		wanted[a] = true
		if !slices.Contains(filter.Address, a.asset) {
			filter.Address = append(filter.Address, a.asset)
		}
		if payer := common.BytesToHash(a.payer[:]); !slices.Contains(filter.Topics[1], payer) {
			filter.Topics[1] = append(filter.Topics[1], payer)
		}
		filter.Topics[2] = append(filter.Topics[2], a.nonce)
	}
	found := make(map[authorization]string)
	for pos := from; pos <= to; {
		e.mu.Lock()
		window := e.window
		e.mu.Unlock()
		end := to
		if window > 0 && end-pos >= window {
			end = pos + window - 1
		}
		filter.FromBlock, filter.ToBlock = hexutil.EncodeUint64(pos), hexutil.EncodeUint64(end)
		var logs []logEntry
		if err := e.client.CallContext(ctx, &logs, "eth_getLogs", filter); err != nil {
			var refused rpc.Error
			if !errors.As(err, &refused) || end == pos {
				return nil, err
			}
			e.mu.Lock()
			if half := (end - pos + 1) / 2; e.window == 0 || half < e.window {
				e.window = half
			}
			e.mu.Unlock()
			continue
		}
		for _, lg := range logs {
			if lg.Removed || len(lg.Topics) != 3 || lg.Topics[0] != authorizationUsedTopic {
				continue
			}
			a := authorization{payer: common.BytesToAddress(lg.Topics[1][:]), asset: lg.Address, nonce: lg.Topics[2]}
			if !wanted[a] {
				continue
			}
			if lg.TxHash == nil || lg.BlockNumber == nil {
				return nil, errors.New("an AuthorizationUsed event names no transaction or block")
			}
			if _, seen := found[a]; !seen {
				found[a] = lg.TxHash.Hex()
			}
		}
		if end == math.MaxUint64 {
			break
		}
		pos = end + 1
	}
	return found, nil
}

// conflict returns the *ConflictError of the endpoint for reason.
func (e *endpoint) conflict(reason string) error {
	return &ConflictError{Endpoint: e.n, Reason: reason}
}

// nodeError returns err of a call of method, scrubbed of secrets (the endpoints' URLs, the
// payments' nonces) and of the URL net/http quotes. It unwraps to the sentinels the failure
// is (nodeSentinels), to a *BatchError, and to reconcile.ErrUnreachable when the node
// could not be reached or did not answer in time.
func (e *endpoint) nodeError(method string, err error, secrets []string) error {
	ne := &nodeError{endpoint: e.label, method: method, text: scrubText(err, secrets)}
	for _, c := range nodeSentinels {
		if errors.Is(err, c) {
			ne.causes = append(ne.causes, c)
			break
		}
	}
	if be := (*BatchError)(nil); errors.As(err, &be) {
		ne.causes = append(ne.causes, be)
	}
	if isUnreachable(err) {
		ne.causes = append(ne.causes, reconcile.ErrUnreachable)
	}
	return ne
}
