package evm_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// What the fake node knows of EIP-3009, computed here from the signatures rather than
// taken from the package under test.
var (
	authorizationStateSelector = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]
	authorizationUsedTopic     = common.BytesToHash(crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)")))
)

// The fake chain's shape: a block every blockSeconds, the finalized block finalizedLag
// blocks behind the latest and the safe one safeLag behind, as anvil reports them.
const (
	blockSeconds = 2
	finalizedLag = 64
	safeLag      = 32
	headBlock    = 1_000_000
)

// nodeFault is a failure or a lie the fake EVM node answers with.
type nodeFault int

// The faults of the fake EVM node.
const (
	noFault nodeFault = iota
	faultHTTP500
	faultStall         // hold the request until the client gives up
	faultGarbage       // a body that is not JSON
	faultBatchEmpty    // a batch answered with no answers
	faultBatchWrongIDs // a batch answered under other ids
	faultBatchRepeat   // a batch whose first answer is repeated in place of its last
	faultBatchRotate   // a batch whose answers each carry the next call's id
	faultDropLast      // a batch answered without its last answer
	faultShortResult   // eth_call answers one byte
	faultNotBool       // eth_call answers 32 bytes that are no bool
	faultCallError     // eth_call answers a JSON-RPC error
	faultNullHeader    // eth_getBlockByNumber answers null for the latest block
	faultLogsRefused   // eth_getLogs answers a range error, whatever the range
	faultLie           // eth_call answers false for every authorization
	faultLieUsed       // eth_call answers true for every authorization
	faultHideLogs      // eth_getLogs answers no events
	faultFutureLatest  // the latest block is a day ahead, a thousand blocks on
	faultFutureTime    // every block's time is a day ahead
	faultNoFinalized   // the finalized tag is unknown (the safe one is)
	faultFinalAhead    // the finalized block is ahead of the latest
)

// rpcCall is one JSON-RPC call the fake node received.
type rpcCall struct {
	Method string
	Params []json.RawMessage
}

// rpcExchange is one HTTP request the fake node received: its calls, whether it was a
// batch, and when it came.
type rpcExchange struct {
	Calls []rpcCall
	Batch bool
	At    time.Time
}

// authKey identifies an authorization on the fake chain.
type authKey struct {
	asset, payer common.Address
	nonce        common.Hash
}

// use is an authorization's settlement on the fake chain.
type use struct {
	tx    common.Hash
	block uint64
}

// evmNode is a fake EVM JSON-RPC node of one chain with regular blocks, holding its used
// EIP-3009 authorizations, with faults and lies on demand. It answers eth_chainId,
// eth_getBlockByNumber (by number, latest, safe and finalized), eth_call of
// authorizationState at a block and eth_getLogs of AuthorizationUsed over a range (refusing
// ranges wider than maxRange when set), singly or in batches, and records every request.
type evmNode struct {
	URL string

	mu        sync.Mutex
	chainID   uint64
	head      uint64
	headTime  time.Time
	maxRange  uint64
	used      map[authKey]use
	faults    map[string][]nodeFault // method -> faults ("" for every request)
	exchanges []rpcExchange
}

// startEVMNode starts a fake node of Base (chain 8453) whose latest block, headBlock, is at
// at; it stops when the test ends.
func startEVMNode(t *testing.T, at time.Time) *evmNode {
	t.Helper()
	n := &evmNode{chainID: 8453, head: headBlock, headTime: at, used: map[authKey]use{}, faults: map[string][]nodeFault{}}
	srv := httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(srv.Close)
	n.URL = srv.URL
	return n
}

// blockTime returns the time of block b; n.mu is held.
func (n *evmNode) blockTime(b uint64) time.Time {
	return n.headTime.Add(-time.Duration(n.head-b) * blockSeconds * time.Second)
}

// blockAt returns the first block whose time is at least at.
func (n *evmNode) blockAt(at time.Time) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	for b := n.head; ; b-- {
		if b == 0 || n.blockTime(b-1).Before(at) {
			return b
		}
	}
}

// finalized returns the number of the finalized block.
func (n *evmNode) finalized() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.head - finalizedLag
}

// settle records the authorization of payer with nonce on asset as used by transaction tx,
// in the block before the finalized one.
func (n *evmNode) settle(asset, payer, nonce, tx string) {
	n.settleAt(asset, payer, nonce, tx, n.finalized()-1)
}

// settleAt records the authorization of payer with nonce on asset as used by transaction tx
// in block.
func (n *evmNode) settleAt(asset, payer, nonce, tx string, block uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.used[authKey{common.HexToAddress(asset), common.HexToAddress(payer), common.HexToHash(nonce)}] = use{common.HexToHash(tx), block}
}

// mine moves the head on by blocks, blockSeconds each.
func (n *evmNode) mine(blocks uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.head += blocks
	n.headTime = n.headTime.Add(time.Duration(blocks) * blockSeconds * time.Second)
}

// fail makes every call of method ("" for every request) answer with faults, in place of
// those set before.
func (n *evmNode) fail(method string, faults ...nodeFault) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.faults[method] = faults
}

// refuseRangesOver makes eth_getLogs refuse ranges of more than blocks blocks.
func (n *evmNode) refuseRangesOver(blocks uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.maxRange = blocks
}

// serveChain makes the node answer eth_chainId with id.
func (n *evmNode) serveChain(id uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.chainID = id
}

// calls returns the calls of method received so far, in order.
func (n *evmNode) calls(method string) []rpcCall {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []rpcCall
	for _, e := range n.exchanges {
		for _, c := range e.Calls {
			if c.Method == method {
				out = append(out, c)
			}
		}
	}
	return out
}

// batches returns the requests whose first call is of method, in order.
func (n *evmNode) batches(method string) []rpcExchange {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []rpcExchange
	for _, e := range n.exchanges {
		if len(e.Calls) > 0 && e.Calls[0].Method == method {
			out = append(out, e)
		}
	}
	return out
}

// requests returns how many HTTP requests the node received.
func (n *evmNode) requests() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.exchanges)
}

// rpcMessage is a JSON-RPC request or answer.
type rpcMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  []json.RawMessage `json:"params,omitempty"`
	Result  any               `json:"result,omitempty"`
	Error   *rpcErrorObject   `json:"error,omitempty"`
}

// rpcErrorObject is a JSON-RPC error.
type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// faultsOf returns the faults of a request whose first call is of method; n.mu is held.
func (n *evmNode) faultsOf(method string) []nodeFault {
	return slices.Concat(n.faults[""], n.faults[method])
}

func (n *evmNode) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
	var reqs []rpcMessage
	if batch {
		err = json.Unmarshal(body, &reqs)
	} else {
		reqs = make([]rpcMessage, 1)
		err = json.Unmarshal(body, &reqs[0])
	}
	if err != nil || len(reqs) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ex := rpcExchange{Batch: batch, At: time.Now()}
	for _, req := range reqs {
		ex.Calls = append(ex.Calls, rpcCall{Method: req.Method, Params: req.Params})
	}
	n.mu.Lock()
	n.exchanges = append(n.exchanges, ex)
	faults := n.faultsOf(reqs[0].Method)
	answers := make([]rpcMessage, len(reqs))
	for i, req := range reqs {
		answers[i] = n.answer(req, faults)
	}
	n.mu.Unlock()

	for _, fault := range faults {
		switch fault {
		case faultHTTP500:
			http.Error(w, "upstream unavailable", http.StatusInternalServerError)
			return
		case faultStall:
			<-r.Context().Done()
			return
		case faultGarbage:
			_, _ = io.WriteString(w, "<html>rate limited</html>")
			return
		case faultBatchEmpty:
			answers = answers[:0]
		case faultBatchWrongIDs:
			for i := range answers {
				answers[i].ID = json.RawMessage(strconv.Itoa(1000 + i))
			}
		case faultBatchRepeat:
			if len(answers) > 1 {
				answers[len(answers)-1] = answers[0]
			}
		case faultBatchRotate:
			ids := make([]json.RawMessage, len(answers))
			for i := range answers {
				ids[i] = answers[(i+1)%len(answers)].ID
			}
			for i := range answers {
				answers[i].ID = ids[i]
			}
		case faultDropLast:
			answers = answers[:len(answers)-1]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_ = json.NewEncoder(w).Encode(answers)
	} else {
		_ = json.NewEncoder(w).Encode(answers[0])
	}
}

// answer answers one call; n.mu is held.
func (n *evmNode) answer(req rpcMessage, faults []nodeFault) rpcMessage {
	out := rpcMessage{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "eth_chainId":
		out.Result = hexutil.EncodeUint64(n.chainID)
	case "eth_getBlockByNumber":
		out.Result, out.Error = n.header(req.Params, faults)
	case "eth_call":
		out.Result, out.Error = n.authorizationState(req.Params, faults)
	case "eth_getLogs":
		out.Result, out.Error = n.logs(req.Params, faults)
	default:
		out.Error = &rpcErrorObject{Code: -32601, Message: "the method " + req.Method + " does not exist"}
	}
	return out
}

// blockParam reads a block parameter: a tag or a number. ok is false for a tag the node does
// not know. n.mu is held.
func (n *evmNode) blockParam(raw json.RawMessage, faults []nodeFault) (block uint64, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	switch s {
	case "latest":
		if slices.Contains(faults, faultFutureLatest) {
			return n.head + 1000, true
		}
		return n.head, true
	case "finalized":
		if slices.Contains(faults, faultNoFinalized) {
			return 0, false
		}
		if slices.Contains(faults, faultFinalAhead) {
			return n.head + 1, true
		}
		return n.head - finalizedLag, true
	case "safe":
		return n.head - safeLag, true
	}
	b, err := hexutil.DecodeUint64(s)
	return b, err == nil
}

// header answers an eth_getBlockByNumber.
func (n *evmNode) header(params []json.RawMessage, faults []nodeFault) (any, *rpcErrorObject) {
	if len(params) != 2 {
		return nil, &rpcErrorObject{Code: -32602, Message: "two parameters are needed"}
	}
	b, ok := n.blockParam(params[0], faults)
	if !ok {
		return nil, &rpcErrorObject{Code: -32602, Message: "unknown block tag"}
	}
	var tag string
	_ = json.Unmarshal(params[0], &tag)
	if tag == "latest" && slices.Contains(faults, faultNullHeader) {
		return json.RawMessage("null"), nil
	}
	at := n.blockTime(min(b, n.head))
	if b > n.head { // a lie of the latest or the finalized block: a day ahead
		if tag == "" {
			return json.RawMessage("null"), nil
		}
		at = n.headTime.Add(24 * time.Hour)
	}
	if slices.Contains(faults, faultFutureTime) {
		at = at.Add(24 * time.Hour)
	}
	return map[string]any{
		"number":    hexutil.EncodeUint64(b),
		"timestamp": hexutil.EncodeUint64(uint64(at.Unix())),
		"hash":      common.BigToHash(new(big.Int).SetUint64(b)).Hex(),
	}, nil
}

// authorizationState answers an eth_call of authorizationState(payer, nonce) at a block.
func (n *evmNode) authorizationState(params []json.RawMessage, faults []nodeFault) (any, *rpcErrorObject) {
	var call struct {
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	if len(params) != 2 || json.Unmarshal(params[0], &call) != nil || len(call.Data) != 68 ||
		!bytes.Equal(call.Data[:4], authorizationStateSelector) {
		return nil, &rpcErrorObject{Code: -32602, Message: "not an authorizationState call"}
	}
	block, ok := n.blockParam(params[1], faults)
	switch {
	case !ok:
		return nil, &rpcErrorObject{Code: -32602, Message: "unknown block"}
	case block > n.head:
		return nil, &rpcErrorObject{Code: -32000, Message: "block out of range"}
	}
	for _, fault := range faults {
		switch fault {
		case faultCallError:
			return nil, &rpcErrorObject{Code: -32000, Message: "execution reverted"}
		case faultShortResult:
			return hexutil.Bytes{1}, nil
		case faultNotBool:
			return hexutil.Bytes(common.LeftPadBytes([]byte{2}, 32)), nil
		}
	}
	key := authKey{call.To, common.BytesToAddress(call.Data[4:36]), common.BytesToHash(call.Data[36:68])}
	u, used := n.used[key]
	used = used && u.block <= block
	switch {
	case slices.Contains(faults, faultLie):
		used = false
	case slices.Contains(faults, faultLieUsed):
		used = true
	}
	result := make([]byte, 32)
	if used {
		result[31] = 1
	}
	return hexutil.Bytes(result), nil
}

// logs answers an eth_getLogs of AuthorizationUsed events over a range.
func (n *evmNode) logs(params []json.RawMessage, faults []nodeFault) (any, *rpcErrorObject) {
	var filter struct {
		FromBlock, ToBlock string
		Address            []common.Address `json:"address"`
		Topics             [][]common.Hash  `json:"topics"`
	}
	if len(params) != 1 || json.Unmarshal(params[0], &filter) != nil || len(filter.Topics) != 3 {
		return nil, &rpcErrorObject{Code: -32602, Message: "not an AuthorizationUsed filter"}
	}
	from, err1 := hexutil.DecodeUint64(filter.FromBlock)
	to, err2 := hexutil.DecodeUint64(filter.ToBlock)
	switch {
	case err1 != nil || err2 != nil || from > to:
		return nil, &rpcErrorObject{Code: -32602, Message: "invalid block range"}
	case slices.Contains(faults, faultLogsRefused) || n.maxRange > 0 && to-from+1 > n.maxRange:
		return nil, &rpcErrorObject{Code: -32005, Message: "query exceeds max block range " + strconv.FormatUint(n.maxRange, 10)}
	case slices.Contains(faults, faultHideLogs):
		return []any{}, nil
	}
	out := []any{}
	for key, u := range n.used {
		payer := common.BytesToHash(key.payer[:])
		if u.block < from || u.block > to || !slices.Contains(filter.Address, key.asset) ||
			!slices.Contains(filter.Topics[0], authorizationUsedTopic) || !slices.Contains(filter.Topics[1], payer) ||
			!slices.Contains(filter.Topics[2], key.nonce) {
			continue
		}
		out = append(out, map[string]any{
			"address":          key.asset,
			"topics":           []common.Hash{authorizationUsedTopic, payer, key.nonce},
			"data":             "0x",
			"blockNumber":      hexutil.EncodeUint64(u.block),
			"transactionHash":  u.tx,
			"transactionIndex": "0x0",
			"logIndex":         "0x0",
			"removed":          false,
		})
	}
	return out, nil
}

// callOf decodes what an eth_call of authorizationState asked: the token, the payer and the
// nonce (0x hex, lower case), and the block.
func callOf(t *testing.T, c rpcCall) (token, payer, nonce, block string) {
	t.Helper()
	require.Equal(t, "eth_call", c.Method)
	require.Len(t, c.Params, 2)
	var call struct {
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	require.NoError(t, json.Unmarshal(c.Params[0], &call))
	require.NoError(t, json.Unmarshal(c.Params[1], &block))
	require.Len(t, []byte(call.Data), 68)
	require.Equal(t, authorizationStateSelector, []byte(call.Data[:4]), "the selector of authorizationState(address,bytes32)")
	require.Equal(t, make([]byte, 12), []byte(call.Data[4:16]), "an ABI address is padded on the left")
	return call.To.Hex(), common.BytesToAddress(call.Data[16:36]).Hex(), "0x" + hex.EncodeToString(call.Data[36:68]), block
}

// logFilterOf decodes an eth_getLogs's filter.
func logFilterOf(t *testing.T, c rpcCall) (from, to uint64, addresses []common.Address, topics [][]common.Hash) {
	t.Helper()
	require.Equal(t, "eth_getLogs", c.Method)
	require.Len(t, c.Params, 1)
	var filter struct {
		FromBlock, ToBlock string
		Address            []common.Address
		Topics             [][]common.Hash
	}
	require.NoError(t, json.Unmarshal(c.Params[0], &filter))
	from, err := hexutil.DecodeUint64(filter.FromBlock)
	require.NoError(t, err)
	to, err = hexutil.DecodeUint64(filter.ToBlock)
	require.NoError(t, err)
	return from, to, filter.Address, filter.Topics
}
