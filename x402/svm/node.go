package svm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// DefaultCallTimeout bounds each call of a Node by default.
const DefaultCallTimeout = 60 * time.Second

// Node is a Solana JSON-RPC node as every Solana payment of the SDK uses it: each call
// bounded in time, every failure an *RPCError whose texts never hold the node's URL (which may
// carry a provider's access key). It is safe for concurrent use.
type Node struct {
	client   *rpc.Client
	rawURL   string // scrubbed from errors; "" for a client given whole
	timeout  time.Duration
	service  string // the prefix of the errors' texts
	insecure bool   // DialNode may reach a remote node over plain http (WithInsecureHTTP)
	mints    sync.Map
}

// NodeOption configures a Node.
type NodeOption func(*Node) error

// WithCallTimeout bounds each call of the node (default DefaultCallTimeout): a call the bound
// ends fails with an *RPCError matching context.DeadlineExceeded.
func WithCallTimeout(d time.Duration) NodeOption {
	return func(n *Node) error {
		if d <= 0 {
			return invalid("Solana RPC call timeout", "must be positive")
		}
		n.timeout = d
		return nil
	}
}

// WithErrorPrefix names the service whose errors the node's failures are ("x402" by default),
// for a client that reports them under its own name (gpuprice does).
func WithErrorPrefix(service string) NodeOption {
	return func(n *Node) error {
		n.service = service
		return nil
	}
}

// WithInsecureHTTP lets DialNode reach a remote node over plain http. Without it a remote
// node's URL must be https: its answers decide what a budget gives back, and its URL may
// carry a provider's access key, so neither may travel in the clear. A node on loopback may
// always be reached over http.
func WithInsecureHTTP() NodeOption {
	return func(n *Node) error {
		n.insecure = true
		return nil
	}
}

// DialNode returns the node at rawURL, an https JSON-RPC endpoint, or an http one on loopback
// (127.0.0.0/8, ::1, localhost) or with WithInsecureHTTP. Any other URL is a
// *sdk.ValidationError (of the service WithErrorPrefix names), which never quotes it.
func DialNode(rawURL string, opts ...NodeOption) (*Node, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, invalid("Solana RPC URL", "must be an absolute http or https URL")
	}
	n, err := newNode(rpc.New(rawURL), rawURL, opts)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "http" && !n.insecure && !isLoopback(u.Hostname()) {
		return nil, &sdk.ValidationError{Service: n.service, Field: "Solana RPC URL",
			Reason: "must be https: plain http is allowed on loopback only, or with svm.WithInsecureHTTP"}
	}
	return n, nil
}

// isLoopback reports whether host names this machine: localhost, or an address of
// 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewNode returns the node client reaches, for one that needs a transport or headers of its
// own (rpc.NewWithCustomRPCClient).
func NewNode(client *rpc.Client, opts ...NodeOption) (*Node, error) {
	if client == nil {
		return nil, invalid("Solana RPC client", "must not be nil")
	}
	return newNode(client, "", opts)
}

// newNode applies opts to the node of client at rawURL.
func newNode(client *rpc.Client, rawURL string, opts []NodeOption) (*Node, error) {
	n := &Node{client: client, rawURL: rawURL, timeout: DefaultCallTimeout, service: "x402"}
	for _, opt := range opts {
		if err := opt(n); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Client returns the node's solana-go client, for calls this package does not make; bound
// them with Call to get its timeouts and errors.
func (n *Node) Client() *rpc.Client { return n.client }

// Call makes call, one call of node n named method, within the node's call timeout, and
// returns its failure as an *RPCError: solana-go's client does not go through the SDK's HTTP
// core, so each of its calls is bounded through its context. A call the bound ends fails
// with an *RPCError matching context.DeadlineExceeded; its text holds no URL.
func Call[T any](ctx context.Context, n *Node, method string, call func(context.Context, *rpc.Client) (T, error)) (T, error) {
	bound := fmt.Errorf("no answer from the Solana node within %s: %w", n.timeout, context.DeadlineExceeded)
	callCtx, cancel := context.WithTimeoutCause(ctx, n.timeout, bound)
	defer cancel()
	v, err := call(callCtx, n.client)
	if err != nil {
		if ctx.Err() == nil && context.Cause(callCtx) == bound {
			err = bound
		}
		return v, n.Error(method, err)
	}
	return v, nil
}

// LatestBlockhash returns the node's latest blockhash at commitment and the last block height
// at which a transaction using it can land.
func (n *Node) LatestBlockhash(ctx context.Context, commitment rpc.CommitmentType) (solana.Hash, uint64, error) {
	res, err := Call(ctx, n, "getLatestBlockhash", func(ctx context.Context, c *rpc.Client) (*rpc.GetLatestBlockhashResult, error) {
		return c.GetLatestBlockhash(ctx, commitment)
	})
	if err != nil {
		return solana.Hash{}, 0, err
	}
	if res == nil || res.Value == nil || res.Value.Blockhash.IsZero() {
		return solana.Hash{}, 0, n.answerError("getLatestBlockhash", "the node returned no blockhash")
	}
	return res.Value.Blockhash, res.Value.LastValidBlockHeight, nil
}

// BlockHeight returns the node's block height at commitment.
func (n *Node) BlockHeight(ctx context.Context, commitment rpc.CommitmentType) (uint64, error) {
	return Call(ctx, n, "getBlockHeight", func(ctx context.Context, c *rpc.Client) (uint64, error) {
		return c.GetBlockHeight(ctx, commitment)
	})
}

// Mint is what a payment needs to know of a token's mint.
type Mint struct {
	// Program is the token program that owns the mint: Token or Token-2022.
	Program solana.PublicKey
	// Decimals is the mint's number of decimals.
	Decimals uint8
}

// mintSize is the size of an SPL Token mint account; a Token-2022 mint with extensions is
// longer, with the same first 82 bytes.
const mintSize = 82

// Mint returns the program and the decimals of mint: from this package's table for the USDC
// mints it knows, otherwise read once from the node (getAccountInfo) and remembered, since
// neither ever changes.
func (n *Node) Mint(ctx context.Context, mint solana.PublicKey) (Mint, error) {
	if m, ok := knownMints[mint]; ok {
		return m, nil
	}
	if m, ok := n.mints.Load(mint); ok {
		return m.(Mint), nil
	}
	res, err := Call(ctx, n, "getAccountInfo", func(ctx context.Context, c *rpc.Client) (*rpc.GetAccountInfoResult, error) {
		return c.GetAccountInfoWithOpts(ctx, mint, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64})
	})
	if err != nil {
		return Mint{}, err
	}
	if res == nil || res.Value == nil || res.Value.Data == nil {
		return Mint{}, n.answerError("getAccountInfo", "the mint's account is missing")
	}
	data := res.Value.Data.GetBinary()
	m := Mint{Program: res.Value.Owner}
	switch {
	case !m.Program.Equals(solana.TokenProgramID) && !m.Program.Equals(solana.Token2022ProgramID):
		return Mint{}, n.answerError("getAccountInfo", "the asset is not a mint of the Token or Token-2022 program")
	case len(data) < mintSize || data[45] != 1: // decimals at 44, is_initialized at 45
		return Mint{}, n.answerError("getAccountInfo", "the asset's account is not an initialized mint")
	}
	m.Decimals = data[44]
	if binary.LittleEndian.Uint32(data[:4]) > 1 { // the mint authority's option tag
		return Mint{}, n.answerError("getAccountInfo", "the asset's account is not a mint")
	}
	n.mints.Store(mint, m)
	return m, nil
}

// answerError returns the *RPCError of an answer of method that cannot be used.
func (n *Node) answerError(method, msg string) *RPCError {
	return &RPCError{Service: n.service, Method: method, Message: msg, Err: errors.New(msg)}
}

// Error converts an error of a call of method into an *RPCError whose texts hold no URL:
// solana-go quotes the node's URL, which may carry an access key. The transaction error and
// the logs of the node's error data are kept.
func (n *Node) Error(method string, err error) *RPCError {
	var rerr *RPCError
	if errors.As(err, &rerr) {
		return rerr
	}
	var je *jsonrpc.RPCError
	if errors.As(err, &je) {
		rerr := &RPCError{Service: n.service, Method: method, Code: je.Code, Message: n.scrubURL(je.Message),
			Err: errors.New(n.scrubURL(je.Message))}
		rerr.TransactionError, rerr.Logs = n.errorData(je.Data)
		return rerr
	}
	msg := n.scrubURL(err.Error())
	cause := errors.New(msg)
	for _, sentinel := range keptCauses {
		if errors.Is(err, sentinel) {
			cause = sentinel
		}
	}
	return &RPCError{Service: n.service, Method: method, Message: msg, Err: cause}
}

// keptCauses are the failures an *RPCError unwraps to when a call ends with one: the ends of a
// context, and solana-go's answer that an account or a transaction is not there. Other causes
// are not kept, since their texts may quote the node's URL.
var keptCauses = []error{context.Canceled, context.DeadlineExceeded, rpc.ErrNotFound}

// errorData returns the transaction error ("err") and the program logs ("logs") of a node's
// error data, such as that of a sendTransaction whose simulation failed; nothing when the
// data has neither.
func (n *Node) errorData(data any) (json.RawMessage, []string) {
	if data == nil {
		return nil, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, nil
	}
	var d struct {
		Err  json.RawMessage `json:"err"`
		Logs []string        `json:"logs"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil, nil
	}
	if string(d.Err) == "null" {
		d.Err = nil
	}
	for i, line := range d.Logs {
		d.Logs[i] = n.scrubURL(line)
	}
	return d.Err, d.Logs
}

// urlPattern finds URLs in an error text.
var urlPattern = regexp.MustCompile(`(?i)\b(?:https?|wss?)://[^\s"']+`)

// scrubURL removes the node's URL, and any other URL, from s.
func (n *Node) scrubURL(s string) string {
	if n.rawURL != "" {
		s = strings.ReplaceAll(s, n.rawURL, "[rpc url]")
	}
	return urlPattern.ReplaceAllString(s, "[rpc url]")
}

// RPCError reports a failure of a Solana JSON-RPC node: an error answer (Code and Message are
// the node's) or no answer (Code 0). A refused transaction keeps what the node's error data
// says: the transaction error, the failing instruction and the program logs. Its text never
// holds the node's URL, which may carry an access key.
type RPCError struct {
	// Service names who reports it ("x402", "gpuprice"), the start of its text.
	Service string
	// Method is the JSON-RPC method, such as "sendTransaction".
	Method string
	// Code and Message are the node's JSON-RPC error; Code is 0 when the node gave none.
	Code    int
	Message string
	// TransactionError is the transaction error of the node's error data ("err"), as the
	// node sent it: "AccountNotFound", {"InstructionError":[1,{"Custom":1}]}, ...; nil when
	// the answer carried none.
	TransactionError json.RawMessage
	// Instruction says which instruction failed and in which program, when TransactionError
	// is an instruction's error; nil otherwise.
	Instruction *InstructionFailure
	// Logs are the program logs of the node's simulation, up to the failure.
	Logs []string
	// Err is the cause.
	Err error
}

// Error names the method and the node's error, and in words the failing instruction and
// its program.
func (e *RPCError) Error() string {
	msg := e.Service + ": Solana RPC " + e.Method + ": " + e.Message
	if e.Instruction != nil {
		msg += " (" + e.Instruction.String() + ")"
	}
	return msg
}

// Unwrap returns the cause.
func (e *RPCError) Unwrap() error { return e.Err }

// Scrubbed returns a copy of e with each of secrets (a signed transaction's signature, which
// may redeem something) removed from every text it carries: its message, logs, transaction
// error and cause.
func (e *RPCError) Scrubbed(secrets ...string) *RPCError {
	c := *e
	c.Message = httpcore.Scrub(e.Message, secrets...)
	c.Logs = make([]string, len(e.Logs))
	for i, l := range e.Logs {
		c.Logs[i] = httpcore.Scrub(l, secrets...)
	}
	if e.TransactionError != nil {
		c.TransactionError = []byte(httpcore.Scrub(string(e.TransactionError), secrets...))
	}
	if e.Err != nil && httpcore.Scrub(e.Err.Error(), secrets...) != e.Err.Error() {
		c.Err = errors.New(httpcore.Scrub(e.Err.Error(), secrets...))
	}
	return &c
}
