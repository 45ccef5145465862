package crashtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
)

// ChildPayer returns the payer of a child process that pays until it dies or its budget is
// spent: EVM "exact" with the hex private key key, drawing on b alone (no policy of its own)
// and sending each payment once, so that what the child's store holds is all it did.
func ChildPayer(key string, b *budget.Budget) (*x402.Payer, error) {
	signer, err := evm.NewPrivateKeySigner(key)
	if err != nil {
		return nil, err
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		return nil, err
	}
	return x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b), x402.WithResend(0, 0))
}

// runChild pays as the job spec says until it kills itself, or finds the budget spent, and
// writes what happened on stdout: the test process reads it.
func runChild(cfg Config, spec string) {
	if err := pay(cfg, spec); err != nil {
		fmt.Fprintf(os.Stdout, "crashtest: %v\n", err)
	}
}

// pay runs the child's job; it returns only when the budget is spent (saying so on stdout)
// or on a failure.
func pay(cfg Config, spec string) error {
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		return err
	}
	k := &killer{j: j}
	store, err := cfg.Open(j.Addr)
	if err != nil {
		return fmt.Errorf("opening the store: %w", err)
	}
	defer store.Close()
	spend, err := budget.New(big.NewInt(j.MaxTotal), budget.WithStore(&killingStore{Store: store, k: k}))
	if err != nil {
		return err
	}
	payer, err := ChildPayer(j.Key, spend)
	if err != nil {
		return err
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	wire := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &killingConn{Conn: c, k: k}, nil
	}}
	client := &http.Client{Transport: payer.RoundTripper(&killingTransport{next: wire, k: k}), Timeout: 30 * time.Second}
	for i := range maxPayments {
		resp, err := client.Get(fmt.Sprintf("%s/item/%d", j.URL, i))
		if errors.Is(err, x402.ErrBudgetExceeded) {
			fmt.Fprintln(os.Stdout, exhausted)
			return nil
		}
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("payment %d answered %s", i, resp.Status)
		}
	}
	return fmt.Errorf("%d payments went through a budget of %d", maxPayments, j.MaxTotal/price)
}

// killer kills the process the At-th time it reaches its job's Point.
type killer struct {
	j    job
	mu   sync.Mutex
	seen int
}

// reach kills the process if p is the job's point and this is its At-th time.
func (k *killer) reach(p Point) {
	if p != k.j.Point {
		return
	}
	k.mu.Lock()
	k.seen++
	now := k.seen == k.j.At
	k.mu.Unlock()
	if !now {
		return
	}
	fmt.Fprintln(os.Stdout, killedAt(p))
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal ends the process
}

// killingStore is the child's store, which reaches the points around the store's calls.
type killingStore struct {
	ledger.Store
	k *killer
}

// Reserve reaches BeforeReserve, reserves, and reaches AfterReserve.
func (s *killingStore) Reserve(ctx context.Context, id ledger.HoldID, r ledger.Reservation) error {
	s.k.reach(BeforeReserve)
	err := s.Store.Reserve(ctx, id, r)
	if err == nil {
		s.k.reach(AfterReserve)
	}
	return err
}

// Sign signs, and reaches AfterSign.
func (s *killingStore) Sign(ctx context.Context, id ledger.HoldID, sig ledger.Signature) error {
	err := s.Store.Sign(ctx, id, sig)
	if err == nil {
		s.k.reach(AfterSign)
	}
	return err
}

// Mark marks, and reaches AfterCommit after a commit.
func (s *killingStore) Mark(ctx context.Context, id ledger.HoldID, to ledger.State) (ledger.State, error) {
	st, err := s.Store.Mark(ctx, id, to)
	if err == nil && to == ledger.Committed {
		s.k.reach(AfterCommit)
	}
	return st, err
}

// killingTransport is the transport under the payer: it reaches AfterAnswer when a paid
// request is answered 2xx.
type killingTransport struct {
	next http.RoundTripper
	k    *killer
}

// RoundTrip sends req, and reaches AfterAnswer on the 2xx answer of a paid request.
func (t *killingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && req.Header.Get(wire.HeaderPaymentSignature) != "" && resp.StatusCode/100 == 2 {
		t.k.reach(AfterAnswer)
	}
	return resp, err
}

// killingConn is a connection that reaches AfterSend once it has written a paid request:
// the request is in the kernel's hands, and reaches the server whatever becomes of this
// process.
type killingConn struct {
	net.Conn
	k *killer
}

// paidHeader is how net/http writes the payment's header name.
var paidHeader = []byte("\r\n" + http.CanonicalHeaderKey(wire.HeaderPaymentSignature) + ": ")

// Write writes b, and reaches AfterSend when b holds a paid request.
func (c *killingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err == nil && bytes.Contains(b, paidHeader) {
		c.k.reach(AfterSend)
	}
	return n, err
}
