package x402_test

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/x402test"
)

// benchFixture is one authorization under the spec's requirements (Base Sepolia USDC).
func benchFixture(b *testing.B) (*x402.PaymentPayload, *x402.PaymentRequirements) {
	p := specPayload(b)
	return p, &p.Accepted
}

// apitypesData is the same authorization as typed data for go-ethereum's generic EIP-712
// encoder, the path the reference Go signer takes.
func apitypesData(p *x402.PaymentPayload) apitypes.TypedData {
	a := p.Payload.Authorization
	name, version, _ := p.Accepted.TokenDomain()
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
			},
			"TransferWithAuthorization": {
				{Name: "from", Type: "address"}, {Name: "to", Type: "address"}, {Name: "value", Type: "uint256"},
				{Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"},
			},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name: name, Version: version, ChainId: math.NewHexOrDecimal256(84532), VerifyingContract: p.Accepted.Asset,
		},
		Message: apitypes.TypedDataMessage{
			"from": a.From, "to": a.To, "value": a.Value.String(), "validAfter": a.ValidAfter.String(),
			"validBefore": a.ValidBefore.String(), "nonce": a.Nonce[:],
		},
	}
}

// BenchmarkDigest compares the hand-written EIP-712 digest with go-ethereum's generic
// typed-data encoder (target: at least 5x faster). The typed data is built once, outside the
// loop, which favours apitypes.
func BenchmarkDigest(b *testing.B) {
	p, r := benchFixture(b)
	want, err := x402.DigestFor(r, &p.Payload.Authorization)
	if err != nil {
		b.Fatal(err)
	}
	td := apitypesData(p)
	got, _, err := apitypes.TypedDataAndHash(td)
	if err != nil || !bytes.Equal(got, want[:]) {
		b.Fatalf("apitypes digest %x differs from %x (%v)", got, want, err)
	}
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x402.DigestFor(r, &p.Payload.Authorization); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apitypes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := apitypes.TypedDataAndHash(td); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSign compares digest plus signature with a bare crypto.Sign of a fixed hash, the
// floor (target: within 1.15x).
func BenchmarkSign(b *testing.B) {
	p, r := benchFixture(b)
	const hexKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	signer, err := x402.NewPrivateKeySigner(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("digest+sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := x402.DigestFor(r, &p.Payload.Authorization)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := signer.SignDigest(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare-crypto.Sign", func(b *testing.B) {
		b.ReportAllocs()
		hash := crypto.Keccak256([]byte("fixed"))
		for b.Loop() {
			if _, err := crypto.Sign(hash, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGET compares one whole paid GET against an x402test paywall (402, sign, paid
// request, verification without the signature check, settlement) with one free GET on the
// same server (target: paid <= 2 free + 1.3 signatures, the signature being
// BenchmarkSign/bare-crypto.Sign).
//
// Two more sub-benchmarks bound what any x402 client and server can reach with net/http.
// floor is the least they can spend on the same exchange: the same two round trips carrying
// the header values of a real payment (recorded from one paid GET and replayed byte for byte),
// plus one bare crypto.Sign, and nothing else: no JSON, no base64, no policy, no
// verification, no settlement. free+sign+free is two free GETs with one bare crypto.Sign
// between them, without the 402 and the payment headers. Comparing paid with floor shows what
// this package adds; comparing both bounds with the target shows what the target leaves.
func BenchmarkGET(b *testing.B) {
	const hexKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	f := x402test.NewFacilitator(x402test.WithoutSignatureCheck())
	price := func(r *http.Request) *big.Int {
		if r.URL.Path == "/free" {
			return nil
		}
		return big.NewInt(1000)
	}
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Price: price}, okHandler))
	defer srv.Close()
	signer, err := x402.NewPrivateKeySigner(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	f.Fund(signer.Address(), new(big.Int).Lsh(big.NewInt(1), 128))
	payer, err := x402.NewPayer(signer, x402.Policy{})
	if err != nil {
		b.Fatal(err)
	}
	newTransport := func() *http.Transport {
		return &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	}
	transport := newTransport()
	defer transport.CloseIdleConnections()
	recorded := &headerRecorder{next: transport}
	client := &http.Client{Transport: payer.RoundTripper(recorded)}
	get := func(b *testing.B, c *http.Client, req *http.Request) int {
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	newGET := func(b *testing.B, url string) *http.Request {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		return req
	}
	if status := get(b, client, newGET(b, srv.URL+"/paid")); status != http.StatusOK || !recorded.complete() {
		b.Fatalf("recording a paid GET: status %d, headers %+v", status, recorded)
	}
	b.Run("paid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if status := get(b, client, newGET(b, srv.URL+"/paid")); status != http.StatusOK {
				b.Fatalf("status %d", status)
			}
		}
	})
	b.Run("free", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if status := get(b, client, newGET(b, srv.URL+"/free")); status != http.StatusOK {
				b.Fatalf("status %d", status)
			}
		}
	})
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	hash := crypto.Keccak256([]byte("fixed"))
	b.Run("free+sign+free", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if status := get(b, client, newGET(b, srv.URL+"/free")); status != http.StatusOK {
				b.Fatalf("status %d", status)
			}
			if _, err := crypto.Sign(hash, key); err != nil {
				b.Fatal(err)
			}
			if status := get(b, client, newGET(b, srv.URL+"/free")); status != http.StatusOK {
				b.Fatalf("status %d", status)
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		replay := httptest.NewServer(recorded.replayHandler())
		defer replay.Close()
		floorTransport := newTransport()
		defer floorTransport.CloseIdleConnections()
		plain := &http.Client{Transport: floorTransport}
		b.ReportAllocs()
		for b.Loop() {
			if status := get(b, plain, newGET(b, replay.URL+"/paid")); status != http.StatusPaymentRequired {
				b.Fatalf("unpaid status %d", status)
			}
			if _, err := crypto.Sign(hash, key); err != nil {
				b.Fatal(err)
			}
			req := newGET(b, replay.URL+"/paid")
			req.Header.Set(x402.HeaderPaymentSignature, recorded.payment)
			if status := get(b, plain, req); status != http.StatusOK {
				b.Fatalf("paid status %d", status)
			}
		}
	})
}

// headerRecorder is a transport that keeps the x402 header values of the last paid exchange
// through it, so that BenchmarkGET's floor can replay them.
type headerRecorder struct {
	next                        http.RoundTripper
	challenge, payment, receipt string
}

// RoundTrip sends req and records its payment header and the answer's challenge or receipt.
func (h *headerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if v := req.Header.Get(x402.HeaderPaymentSignature); v != "" {
		h.payment, h.receipt = v, resp.Header.Get(x402.HeaderPaymentResponse)
	} else if v := resp.Header.Get(x402.HeaderPaymentRequired); v != "" {
		h.challenge = v
	}
	return resp, nil
}

// complete reports whether a whole paid exchange was recorded.
func (h *headerRecorder) complete() bool {
	return h.challenge != "" && h.payment != "" && h.receipt != ""
}

// replayHandler answers as the paywall does, with the recorded values and no x402 work: a
// 402 with the challenge to a request without a payment header, and okHandler's answer with
// the receipt to one with it.
func (h *headerRecorder) replayHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(x402.HeaderPaymentSignature) == "" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set(x402.HeaderPaymentRequired, h.challenge)
			w.WriteHeader(http.StatusPaymentRequired)
			_, _ = w.Write([]byte("{}"))
			return
		}
		w.Header().Set(x402.HeaderPaymentResponse, h.receipt)
		okHandler.ServeHTTP(w, r)
	})
}

// BenchmarkCodec measures the x402 messages of one payment, to show where a paid request's
// time goes besides HTTP and the signature.
func BenchmarkCodec(b *testing.B) {
	challenge := readFixture(b, "spec_payment_required.b64")
	payment := readFixture(b, "spec_payment_signature.b64")
	receipt := readFixture(b, "spec_payment_response_success.b64")
	p, err := x402.DecodePaymentPayload(payment)
	if err != nil {
		b.Fatal(err)
	}
	pr := &x402.PaymentRequired{X402Version: 2, Resource: &x402.ResourceInfo{URL: "https://h/r"}, Accepts: []x402.PaymentRequirements{p.Accepted}}
	pr.Accepts[0].Raw = nil
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("encode-challenge", func() error { _, err := x402.EncodePaymentRequired(pr); return err })
	run("decode-challenge", func() error { _, err := x402.DecodePaymentRequired(challenge); return err })
	run("encode-payment", func() error { _, err := x402.EncodePaymentPayload(p); return err })
	run("decode-payment", func() error { _, err := x402.DecodePaymentPayload(payment); return err })
	run("parse-receipt", func() error { _, err := x402.ParseSettleResponse(receipt); return err })
}

// BenchmarkClientWork measures the client's side of one paid request without a server: read
// the challenge (the x402 spec's PAYMENT-REQUIRED example), apply the policy, reserve, sign,
// encode the payment into the request, read the receipt and commit. bare-crypto.Sign is one
// signature of a fixed hash with the same key (target: paid within 1.6x of it).
func BenchmarkClientWork(b *testing.B) {
	const hexKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	signer, err := x402.NewPrivateKeySigner(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	payer, err := x402.NewPayer(signer, x402.Policy{Networks: []string{x402.NetworkBaseSepolia}})
	if err != nil {
		b.Fatal(err)
	}
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	challenge := &http.Response{StatusCode: http.StatusPaymentRequired, Header: http.Header{}, Body: http.NoBody}
	challenge.Header.Set(x402.HeaderPaymentRequired, readFixture(b, "spec_payment_required.b64"))
	receipt := readFixture(b, "spec_payment_response_success.b64")
	req := httptest.NewRequest(http.MethodGet, "https://api.example.com/premium-data", nil)
	b.Run("paid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			paid, err := payer.PayOffline(req, challenge, receipt)
			if err != nil {
				b.Fatal(err)
			}
			if paid.Header.Get(x402.HeaderPaymentSignature) == "" {
				b.Fatal("no payment header")
			}
		}
	})
	b.Run("bare-crypto.Sign", func(b *testing.B) {
		b.ReportAllocs()
		hash := crypto.Keccak256([]byte("fixed"))
		for b.Loop() {
			if _, err := crypto.Sign(hash, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}
