package interop_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
)

// benchFunds is the USDC minted to each of the benchmark's payers: enough for 10^12
// fetches at the price.
const benchFunds = "10000000000000000"

// BenchmarkPaidFetch measures one paid fetch of the reference server's paid resource
// (server.mjs: @x402/express with the reference facilitator settling on USDC on anvil), three
// ways in the same run: the SDK (an x402.Payer on an http.Client), "by-hand", a minimal
// go-ethereum client doing the protocol itself, and "reference", the reference @x402/fetch
// client (client.mjs bench), which makes b.N paid fetches in one node process and reports
// their time alone. Every sub-benchmark reports "ns/fetch", the time of one paid fetch: for
// the Go clients it is ns/op; for the reference client it excludes node's start-up, which
// ns/op includes (and its B/op and allocs/op are the Go side's, not node's). Each fetch
// signs a fresh nonce and settles on the chain: a transaction mined by anvil.
//
//	npm ci --prefix internal/interop/testdata/js --ignore-scripts
//	go test -run='^$' -bench=PaidFetch -benchmem -benchtime=200x ./internal/interop
func BenchmarkPaidFetch(b *testing.B) {
	node, anvil := requireNode(b), requireAnvil(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel) // runs after the cleanups of anvil and the server have stopped them
	signer, err := evm.NewPrivateKeySigner(goPayerKey)
	if err != nil {
		b.Fatal(err)
	}
	stack := startReferenceStack(ctx, b, node, anvil, jsServerConfig{
		PayTo:             payTo,
		Amount:            strconv.Itoa(price),
		Fund:              map[string]string{signer.Address(): benchFunds, jsPayerAddr: benchFunds},
		MaxTimeoutSeconds: 60,
	})
	paidURL := stack.Server.URL + "/paid"

	b.Run("sdk", func(b *testing.B) {
		scheme, err := evm.NewExact(signer)
		if err != nil {
			b.Fatal(err)
		}
		payer, err := x402.NewPayer(x402.Policy{
			MaxPerPayment: big.NewInt(price),
			MaxTotal:      budget.Unlimited, // a benchmark of as many payments as it takes
			PayTo:         []string{payTo},
			Networks:      []string{evm.NetworkBase},
		}, []x402.Scheme{scheme})
		if err != nil {
			b.Fatal(err)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: payer.RoundTripper(tr)}
		runGo(b, func() error { return sdkPaidFetch(ctx, hc, paidURL) })
	})
	b.Run("by-hand", func(b *testing.B) {
		key, err := crypto.HexToECDSA(strings.TrimPrefix(goPayerKey, "0x"))
		if err != nil {
			b.Fatal(err)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: tr}
		runGo(b, func() error { return handPaidFetch(ctx, hc, key, paidURL) })
	})
	b.Run("reference", func(b *testing.B) {
		var out struct {
			N         int   `json:"n"`
			ElapsedNs int64 `json:"elapsedNs"`
		}
		runJSClient(ctx, b, node, jsPayerKey, &out, "bench", paidURL, strconv.Itoa(b.N))
		if out.N != b.N {
			b.Fatalf("client.mjs made %d fetches, want %d", out.N, b.N)
		}
		b.ReportMetric(float64(out.ElapsedNs)/float64(b.N), "ns/fetch")
	})
}

// runGo runs fetch b.N times and reports ns/fetch beside ns/op.
func runGo(b *testing.B, fetch func() error) {
	if err := fetch(); err != nil { // a warm connection, as the reference client has
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := fetch(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/fetch")
}

// sdkPaidFetch is one paid GET through the SDK's payer: the body read, the receipt checked.
func sdkPaidFetch(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	receipt, ok := x402.ReceiptFrom(resp)
	if resp.StatusCode != http.StatusOK || !ok || !receipt.Success {
		return fmt.Errorf("status %d, receipt %v", resp.StatusCode, ok)
	}
	return nil
}

// handRequirement is the part of an accepts entry the hand-written client reads.
type handRequirement struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	Amount            string `json:"amount"`
	Asset             string `json:"asset"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int64  `json:"maxTimeoutSeconds"`
	Extra             struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"extra"`
}

// handChallenge is the PAYMENT-REQUIRED header's JSON; the entries are kept raw to be echoed.
type handChallenge struct {
	X402Version int               `json:"x402Version"`
	Resource    json.RawMessage   `json:"resource,omitempty"`
	Accepts     []json.RawMessage `json:"accepts"`
}

// handAuthorization is an EIP-3009 authorization as the payload carries it.
type handAuthorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// handPayload is the PAYMENT-SIGNATURE header's JSON.
type handPayload struct {
	X402Version int             `json:"x402Version"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Accepted    json.RawMessage `json:"accepted"`
	Payload     struct {
		Signature     string            `json:"signature"`
		Authorization handAuthorization `json:"authorization"`
	} `json:"payload"`
}

// EIP-712 type hashes of the domain and of TransferWithAuthorization.
var (
	domainTypeHash   = crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	transferTypeHash = crypto.Keccak256([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
)

// word is a uint256 as a 32-byte ABI word.
func word(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }

// handPaidFetch is the minimal client doing x402 v2 by hand with go-ethereum: GET, read the
// 402's PAYMENT-REQUIRED, build and sign the EIP-3009 authorization over its EIP-712 digest
// (hashed by hand, the cheapest way), send PAYMENT-SIGNATURE, read PAYMENT-RESPONSE.
func handPaidFetch(ctx context.Context, hc *http.Client, key *ecdsa.PrivateKey, url string) error {
	resp, err := handGet(ctx, hc, url, "")
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusPaymentRequired {
		return fmt.Errorf("first GET: status %d", resp.StatusCode)
	}
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		return err
	}
	var ch handChallenge
	if err := json.Unmarshal(raw, &ch); err != nil {
		return err
	}
	if len(ch.Accepts) == 0 {
		return errors.New("no accepts entry")
	}
	var req handRequirement
	if err := json.Unmarshal(ch.Accepts[0], &req); err != nil {
		return err
	}
	value, ok := new(big.Int).SetString(req.Amount, 10)
	if !ok || req.Scheme != "exact" || !strings.HasPrefix(req.Network, "eip155:") {
		return fmt.Errorf("cannot pay %s %s %q", req.Scheme, req.Network, req.Amount)
	}
	chainID, ok := new(big.Int).SetString(strings.TrimPrefix(req.Network, "eip155:"), 10)
	if !ok {
		return fmt.Errorf("network %q", req.Network)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	to, asset := common.HexToAddress(req.PayTo), common.HexToAddress(req.Asset)
	now := time.Now().Unix()
	validAfter, validBefore := big.NewInt(now-600), big.NewInt(now+req.MaxTimeoutSeconds)
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}

	domain := crypto.Keccak256(domainTypeHash, crypto.Keccak256([]byte(req.Extra.Name)),
		crypto.Keccak256([]byte(req.Extra.Version)), word(chainID), common.LeftPadBytes(asset[:], 32))
	message := crypto.Keccak256(transferTypeHash, common.LeftPadBytes(from[:], 32), common.LeftPadBytes(to[:], 32),
		word(value), word(validAfter), word(validBefore), nonce[:])
	digest := crypto.Keccak256([]byte{0x19, 0x01}, domain, message)
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return err
	}
	sig[64] += 27

	p := handPayload{X402Version: ch.X402Version, Resource: ch.Resource, Accepted: ch.Accepts[0]}
	p.Payload.Signature = hexutil.Encode(sig)
	p.Payload.Authorization = handAuthorization{
		From: from.Hex(), To: to.Hex(), Value: value.String(),
		ValidAfter: validAfter.String(), ValidBefore: validBefore.String(), Nonce: hexutil.Encode(nonce[:]),
	}
	body, err := json.Marshal(&p)
	if err != nil {
		return err
	}
	resp, err = handGet(ctx, hc, url, base64.StdEncoding.EncodeToString(body))
	if err != nil {
		return err
	}
	raw, err = base64.StdEncoding.DecodeString(resp.Header.Get("PAYMENT-RESPONSE"))
	if err != nil {
		return err
	}
	var receipt struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
	}
	if err := json.Unmarshal(raw, &receipt); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !receipt.Success {
		return fmt.Errorf("paid GET: status %d, success %v", resp.StatusCode, receipt.Success)
	}
	return nil
}

// handGet sends a GET, with PAYMENT-SIGNATURE when payment is not "", and reads the body to
// the end so that the connection is reused.
func handGet(ctx context.Context, hc *http.Client, url, payment string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if payment != "" {
		req.Header.Set("PAYMENT-SIGNATURE", payment)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return resp, err
}
