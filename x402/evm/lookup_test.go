package evm_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// What the fake node knows of EIP-3009, computed here from the signatures rather than
// taken from the package under test.
var (
	authorizationStateSelector = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]
	authorizationUsedTopic     = common.BytesToHash(crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)")))
)

// nodeFault is a failure the fake EVM node answers with.
type nodeFault int

// The faults of the fake EVM node.
const (
	noFault nodeFault = iota
	faultHTTP500
	faultStall         // hold the request until the client gives up
	faultGarbage       // a body that is not JSON
	faultBatchEmpty    // a batch answered with no answers
	faultBatchWrongIDs // a batch answered under other ids
	faultDropLast      // a batch answered without its last answer
	faultShortResult   // eth_call answers one byte
	faultNotBool       // eth_call answers 32 bytes that are no bool
	faultCallError     // eth_call answers a JSON-RPC error
	faultNullHeader    // eth_getBlockByNumber answers null
	faultLogsRefused   // eth_getLogs answers a range error
	faultLie           // eth_call answers false for every authorization
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

// evmNode is a fake EVM JSON-RPC node holding one chain's used EIP-3009 authorizations,
// with faults on demand. It answers eth_chainId, eth_getBlockByNumber, eth_call of
// authorizationState and eth_getLogs of AuthorizationUsed, singly or in batches, and
// records every request.
type evmNode struct {
	URL string

	mu        sync.Mutex
	chainID   uint64
	block     uint64
	blockTime time.Time
	used      map[authKey]common.Hash // -> settling transaction
	faults    map[string]nodeFault    // method -> fault ("" for every request)
	exchanges []rpcExchange
}

// startEVMNode starts a fake node of Base (chain 8453) at block 1,000,000 whose time is at;
// it stops when the test ends.
func startEVMNode(t *testing.T, at time.Time) *evmNode {
	t.Helper()
	n := &evmNode{chainID: 8453, block: 1_000_000, blockTime: at, used: map[authKey]common.Hash{}, faults: map[string]nodeFault{}}
	srv := httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(srv.Close)
	n.URL = srv.URL
	return n
}

// settle records the authorization of payer with nonce on asset as used by transaction tx.
func (n *evmNode) settle(asset, payer, nonce, tx string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.used[authKey{common.HexToAddress(asset), common.HexToAddress(payer), common.HexToHash(nonce)}] = common.HexToHash(tx)
}

// fail makes every call of method ("" for every request) answer with fault.
func (n *evmNode) fail(method string, fault nodeFault) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.faults[method] = fault
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

// batches returns the requests that carried calls of method, in order.
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
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ex := rpcExchange{Batch: batch, At: time.Now()}
	for _, req := range reqs {
		ex.Calls = append(ex.Calls, rpcCall{Method: req.Method, Params: req.Params})
	}
	n.mu.Lock()
	n.exchanges = append(n.exchanges, ex)
	fault := n.faults[""]
	if f, ok := n.faults[reqs[0].Method]; ok && fault == noFault {
		fault = f
	}
	answers := make([]rpcMessage, len(reqs))
	for i, req := range reqs {
		answers[i] = n.answer(req, fault)
	}
	n.mu.Unlock()

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
	case faultDropLast:
		answers = answers[:len(answers)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_ = json.NewEncoder(w).Encode(answers)
	} else {
		_ = json.NewEncoder(w).Encode(answers[0])
	}
}

// answer answers one call; n.mu is held.
func (n *evmNode) answer(req rpcMessage, fault nodeFault) rpcMessage {
	out := rpcMessage{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "eth_chainId":
		out.Result = hexutil.EncodeUint64(n.chainID)
	case "eth_getBlockByNumber":
		if fault == faultNullHeader {
			out.Result = json.RawMessage("null")
			break
		}
		out.Result = &types.Header{Number: new(big.Int).SetUint64(n.block), Time: uint64(n.blockTime.Unix()), Difficulty: new(big.Int)}
	case "eth_call":
		out.Result, out.Error = n.authorizationState(req.Params, fault)
	case "eth_getLogs":
		if fault == faultLogsRefused {
			out.Error = &rpcErrorObject{Code: -32005, Message: "query exceeds max block range 500"}
			break
		}
		out.Result = n.logs(req.Params)
	default:
		out.Error = &rpcErrorObject{Code: -32601, Message: "the method " + req.Method + " does not exist"}
	}
	return out
}

// authorizationState answers an eth_call of authorizationState(payer, nonce).
func (n *evmNode) authorizationState(params []json.RawMessage, fault nodeFault) (any, *rpcErrorObject) {
	var call struct {
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	if len(params) != 2 || json.Unmarshal(params[0], &call) != nil || len(call.Data) != 68 ||
		!bytes.Equal(call.Data[:4], authorizationStateSelector) {
		return nil, &rpcErrorObject{Code: -32602, Message: "not an authorizationState call"}
	}
	switch fault {
	case faultCallError:
		return nil, &rpcErrorObject{Code: -32000, Message: "execution reverted"}
	case faultShortResult:
		return hexutil.Bytes{1}, nil
	case faultNotBool:
		return hexutil.Bytes(common.LeftPadBytes([]byte{2}, 32)), nil
	}
	key := authKey{call.To, common.BytesToAddress(call.Data[4:36]), common.BytesToHash(call.Data[36:68])}
	_, used := n.used[key]
	result := make([]byte, 32)
	if used && fault != faultLie {
		result[31] = 1
	}
	return hexutil.Bytes(result), nil
}

// logs answers an eth_getLogs of AuthorizationUsed events.
func (n *evmNode) logs(params []json.RawMessage) any {
	var filter struct {
		Address []common.Address `json:"address"`
		Topics  [][]common.Hash  `json:"topics"`
	}
	if len(params) != 1 || json.Unmarshal(params[0], &filter) != nil || len(filter.Topics) != 3 {
		return []types.Log{}
	}
	in := func(list []common.Hash, h common.Hash) bool {
		for _, x := range list {
			if x == h {
				return true
			}
		}
		return false
	}
	out := []types.Log{}
	for key, tx := range n.used {
		payer := common.BytesToHash(key.payer[:])
		if !in(filter.Topics[0], authorizationUsedTopic) || !in(filter.Topics[1], payer) || !in(filter.Topics[2], key.nonce) {
			continue
		}
		out = append(out, types.Log{Address: key.asset, Topics: []common.Hash{authorizationUsedTopic, payer, key.nonce},
			Data: []byte{}, BlockNumber: n.block - 1, TxHash: tx})
	}
	return out
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

// lower returns s in lower case.
func lower(s string) string { return strings.ToLower(s) }
