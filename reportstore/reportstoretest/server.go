package reportstoretest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// DefaultPayTo is the address the fake store is paid at unless WithPayTo says otherwise.
const DefaultPayTo = "0x7E57000000000000000000000000000000005707"

// formats are the formats the fake serves, with their content types.
var formats = map[string]string{
	"html":        "text/html; charset=utf-8",
	"json":        "application/json",
	"csv":         "text/csv; charset=utf-8",
	"summary-csv": "text/csv; charset=utf-8",
}

// Server is an in-memory macroeconomic report store speaking x402 v2, for tests and examples.
// It serves the free /catalog, /preview/<id> and /start, and sells /report/<id> for the
// product's price through an x402test facilitator: payments are verified (signature
// included) and settled in the facilitator's ledger, so a test can check exactly what moved.
// All its data are synthetic and marked so. It is safe for concurrent use.
type Server struct {
	// URL is the store's base URL, {base_url} of the API description.
	URL string

	srv      *fakeserver.Server
	fac      *x402test.Facilitator
	products []*product
	byID     map[string]*product

	clock sdk.Clock // fixed after NewServer

	mu          sync.Mutex
	prices      map[string]*big.Int // atomic USDC units; never changed in place
	payTo       string
	requote     func(id string, sales int, current *big.Int) *big.Int
	sales       map[string]int
	faults      []x402test.SettlementFault // settlement faults of the next paid requests, in order
	latency     time.Duration
	replays     bool                // deliver a replayed payment again instead of refusing it
	delivered   map[string]delivery // PAYMENT-SIGNATURE value -> what it paid for
	failures    int                 // settlement failures to queue at start
	onChallenge []func()            // run once, each after the next challenge is sent
}

// delivery is a settled purchase, kept (with WithReplayedDeliveries) so that the same signed
// payment sent again gets the report again without paying twice.
type delivery struct {
	target  string // path and query
	receipt string // PAYMENT-RESPONSE value
}

// Option configures a Server.
type Option func(*Server)

// WithClock sets the clock of the store's records and of its own facilitator, which checks a
// payment's validity window on it (default sdk.SystemClock); a test that moves time gives an
// sdktest.Clock. A facilitator of WithFacilitator keeps its own clock.
func WithClock(clock sdk.Clock) Option {
	return func(s *Server) { s.clock = clock }
}

// WithFacilitator makes the store settle payments in f instead of a facilitator of its own,
// so that several fakes share one ledger.
func WithFacilitator(f *x402test.Facilitator) Option {
	return func(s *Server) { s.fac = f }
}

// WithPayTo sets the address the store asks to be paid at (default DefaultPayTo).
func WithPayTo(address string) Option {
	return func(s *Server) { s.payTo = address }
}

// WithPrice sets the price of product id (catalog, bespoke base or bundle) at start, in
// atomic USDC units (usdc.Cents(17) is $0.17).
func WithPrice(id string, amount *big.Int) Option {
	return func(s *Server) { s.prices[id] = new(big.Int).Set(amount) }
}

// WithRequote re-quotes a product after each sale: f gets the product id, its number of
// sales so far and its current price, and returns the new price, in atomic USDC units.
func WithRequote(f func(id string, sales int, current *big.Int) *big.Int) Option {
	return func(s *Server) { s.requote = f }
}

// WithLatency delays every response by d (the wait ends early when the client goes away or
// the store closes).
func WithLatency(d time.Duration) Option {
	return func(s *Server) { s.latency = d }
}

// WithDroppedConnections makes the store close the connection without answering the next n
// paid requests after settling their payment: the money moves but the client gets no
// response. The same signed payment sent again is refused (its nonce is used), as the
// reference x402 server does, unless WithReplayedDeliveries is given. It queues n
// x402test.FaultDropAfterSettle, as InjectSettlementFaults does.
func WithDroppedConnections(n int) Option {
	return func(s *Server) {
		for range n {
			s.faults = append(s.faults, x402test.FaultDropAfterSettle)
		}
	}
}

// WithFaults makes the next paid requests fail around their settlement as faults say, as
// InjectSettlementFaults does.
func WithFaults(faults ...x402test.SettlementFault) Option {
	return func(s *Server) { s.faults = append(s.faults, faults...) }
}

// WithReplayedDeliveries makes the store answer a payment it already settled, sent again for
// the same path and query, with the report again and no new charge (the real store records
// such deliveries as replayed_signature). Without it a replayed payment is refused with a
// 402, as the reference x402 server refuses a used nonce.
func WithReplayedDeliveries() Option {
	return func(s *Server) { s.replays = true }
}

// WithFailedSettlements makes the settlements of the next n payments fail (reason
// "unexpected_settle_error"): the store answers 402 with a failed receipt and no money moves.
// Facilitator().FailNextSettle does the same for one payment while the store runs.
func WithFailedSettlements(n int) Option {
	return func(s *Server) { s.failures = n }
}

// WithLargeReport adds a catalog report id whose CSV (in every format) is a synthetic panel
// of exactly the largest whole number of rows that fits in size bytes, generated while it is
// sent, so that reports of any size can be streamed without the fake holding them in memory.
// Its price is in atomic USDC units.
func WithLargeReport(id string, size int64, price *big.Int) Option {
	return func(s *Server) {
		p := &product{
			id:          id,
			title:       "Large synthetic report",
			description: "A synthetic panel of " + strconv.FormatInt(largeLength(size), 10) + " bytes of CSV, for streaming tests.",
			kind:        reportstore.KindCatalog,
			indicators:  []string{"SYN.STREAM"},
			economies:   len(economies),
			price:       price,
			size:        size,
		}
		s.products = append(s.products, p)
		s.byID[id] = p
		s.prices[id] = new(big.Int).Set(price)
	}
}

// NewServer starts a fake store on 127.0.0.1 with the 80 products of its catalog: the 44
// reports of the API description at the prices of its table (macro-tariffs, unpriced there,
// at $0.25), 34 more catalog reports, the bespoke product "custom" (/report/custom?
// indicators=<codes>&countries=<codes>, $0.20 plus $0.05 per extra indicator, at most
// $0.95) and the bundle "bundle" ($0.95, every catalog report). Reports cover 2015-2025 for
// 20 economies (10 where the API description says 10). Close it when done.
func NewServer(opts ...Option) *Server {
	s := &Server{
		clock:     sdk.SystemClock(),
		payTo:     DefaultPayTo,
		byID:      map[string]*product{},
		prices:    map[string]*big.Int{},
		sales:     map[string]int{},
		delivered: map[string]delivery{},
	}
	for _, p := range catalogProducts() {
		s.products = append(s.products, p)
		s.byID[p.id] = p
		s.prices[p.id] = p.price
	}
	for _, opt := range opts {
		if opt != nil {
			opt(s)
		}
	}
	if s.fac == nil {
		s.fac = x402test.NewFacilitator(x402test.WithClock(s.clock))
	}
	for range s.failures {
		s.fac.FailNextSettle("unexpected_settle_error")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /catalog", s.catalog)
	mux.HandleFunc("GET /start", s.start)
	mux.HandleFunc("GET /preview/{id}", s.preview)
	mux.HandleFunc("GET /report/{id}", s.report)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	})
	s.srv = fakeserver.Start(s.delay(mux), fakeserver.Config{
		Credentials: []string{wire.HeaderPaymentSignature, wire.HeaderPaymentV1},
		Now:         s.clock.Now,
		RenderFault: func(w http.ResponseWriter, _ *http.Request, f sdktest.Fault) {
			writeError(w, f.Status, f.Code, f.Message)
		},
	})
	s.URL = s.srv.URL
	return s
}

// Close shuts the store down; requests still waiting in the store end at once.
func (s *Server) Close() { s.srv.Close() }

// Client returns an *http.Client for the store.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Requests returns the requests the store received, in order of arrival; the payment
// headers (PAYMENT-SIGNATURE, X-PAYMENT) are redacted.
func (s *Server) Requests() []sdktest.Request { return s.srv.Requests() }

// RequestCount returns how many requests with that method and path (escaped, without the
// query, such as "/report/macro-gdp") the store received; an empty method or path matches
// any.
func (s *Server) RequestCount(method, path string) int { return s.srv.RequestCount(method, path) }

// InjectFaults makes the next matching requests fail as faults say, before the store reads
// them: no payment is verified or settled. Their error body is the store's,
// {"error": code, "message": message}.
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.srv.InjectFaults(faults...) }

// InjectSettlementFaults makes the next paid requests fail around the settlement of their
// payment, one fault per paid request, in order (see x402test.SettlementFault: a 503 before settling;
// a 500, a dropped connection, a 402 or a stall after settling, when the money has moved and
// the store has booked the sale). x402test.NoFault lets a paid request through.
func (s *Server) InjectSettlementFaults(faults ...x402test.SettlementFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Facilitator returns the facilitator that holds the ledger: fund payers with its Fund, and
// check Balance and Settlements after a purchase.
func (s *Server) Facilitator() *x402test.Facilitator { return s.fac }

// PayTo returns the address the store currently asks to be paid at.
func (s *Server) PayTo() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.payTo
}

// SetPayTo changes the address the store asks to be paid at, from the next request on.
func (s *Server) SetPayTo(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.payTo = address
}

// Price returns the current price of product id in atomic USDC units, and false for an
// unknown id.
func (s *Server) Price(id string) (*big.Int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.prices[id]
	if !ok {
		return nil, false
	}
	return new(big.Int).Set(p), true
}

// SetPrice re-quotes product id, in atomic USDC units, from the next request on; it panics
// for an unknown id.
func (s *Server) SetPrice(id string, amount *big.Int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.prices[id]; !ok {
		panic("reportstoretest: SetPrice of unknown product " + id)
	}
	s.prices[id] = new(big.Int).Set(amount)
}

// AfterNextChallenge runs f once, right after the store sends its next 402 challenge: a test
// changes the price or the payee there (SetPrice, SetPayTo), so that the payment made for
// that challenge meets a new quote.
func (s *Server) AfterNextChallenge(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChallenge = append(s.onChallenge, f)
}

// Sales returns how many times product id was sold (settled payments).
func (s *Server) Sales(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sales[id]
}

// delay wraps h with the configured latency.
func (s *Server) delay(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		d := s.latency
		s.mu.Unlock()
		if fakeserver.Wait(r.Context(), d) {
			h.ServeHTTP(w, r)
		}
	})
}

// catalogEntry is one product of /catalog.
type catalogEntry struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Price        string   `json:"price"`
	PriceDisplay string   `json:"priceDisplay"`
	Economies    int      `json:"economies"`
	Period       string   `json:"period"`
	Kind         string   `json:"kind"`
	Path         string   `json:"path"`
	Preview      string   `json:"preview,omitempty"`
	Indicators   []string `json:"indicators,omitempty"`
	Formats      []string `json:"formats"`
}

// catalog serves GET /catalog.
func (s *Server) catalog(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	entries := make([]catalogEntry, 0, len(s.products))
	for _, p := range s.products {
		price := s.prices[p.id]
		e := catalogEntry{
			ID: p.id, Title: p.title, Description: p.description,
			Price: sixDecimals(price), PriceDisplay: usdc.Format(price),
			Economies: p.economies, Period: period, Kind: string(p.kind),
			Path: "/report/" + p.id, Indicators: p.indicators,
			Formats: []string{"html", "json", "csv", "summary-csv"},
		}
		switch p.kind {
		case reportstore.KindCatalog:
			e.Preview = "/preview/" + p.id
		case reportstore.KindBespoke:
			e.Price = usdc.Format(price) + "-" + usdc.Format(customMax)
			e.PriceDisplay = "from " + usdc.Format(price)
		}
		entries = append(entries, e)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"service":   "reportstoretest",
		"synthetic": true,
		"notice":    Notice,
		"count":     len(entries),
		"products":  entries,
	})
}

// previewRow is one economy of /preview/<id>.
type previewRow struct {
	Economy   string              `json:"economy"`
	Name      string              `json:"name"`
	Year      int                 `json:"year"`
	Indicator string              `json:"indicator,omitempty"`
	Value     *float64            `json:"value,omitempty"`
	Values    map[string]*float64 `json:"values,omitempty"`
}

// preview serves GET /preview/<id>: the latest year for every covered economy.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) {
	p, ok := s.byID[r.PathValue("id")]
	if !ok || p.kind != reportstore.KindCatalog {
		writeError(w, http.StatusNotFound, "not_found", "no catalog report with this id")
		return
	}
	rows := make([]previewRow, 0, p.economies)
	for _, e := range economies[:p.economies] {
		row := previewRow{Economy: e.code, Name: e.name, Year: lastYear}
		if len(p.indicators) == 1 {
			row.Indicator = p.indicators[0]
			if v, ok := value(p.indicators[0], e.code, lastYear); ok {
				row.Value = &v
			}
		} else {
			row.Values = map[string]*float64{}
			for _, ind := range p.indicators {
				var vp *float64
				if v, ok := value(ind, e.code, lastYear); ok {
					vp = &v
				}
				row.Values[ind] = vp
			}
		}
		rows = append(rows, row)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":         p.id,
		"title":      p.title,
		"year":       lastYear,
		"synthetic":  true,
		"notice":     Notice,
		"indicators": p.indicators,
		"rows":       rows,
		"paidAdds":   []string{"the 2015-2025 panel", "csv, json, html and summary-csv formats"},
	})
}

// startID is the report /start recommends.
const startID = "macro-gdp"

// start serves GET /start.
func (s *Server) start(w http.ResponseWriter, _ *http.Request) {
	p := s.byID[startID]
	price, _ := s.Price(startID)
	goCode := `client, err := reportstore.New(reportstore.WithBaseURL(baseURL), reportstore.WithPayer(payer))
if err != nil {
	return err
}
report, err := client.Report(ctx, "` + startID + `", reportstore.FormatJSON)`
	writeJSON(w, http.StatusOK, map[string]any{
		"synthetic": true,
		"notice":    Notice,
		"recommended": map[string]any{
			"id":    p.id,
			"title": p.title,
			"path":  "/report/" + p.id + "?format=json",
			"price": sixDecimals(price),
		},
		"code": map[string]string{
			"go":   goCode,
			"curl": "curl -i '" + s.URL + "/report/" + startID + "?format=json'",
		},
	})
}

// report serves GET /report/<id>: the format is checked (400), then the request is charged
// through an x402test paywall, and the body is generated and sent once the payment settled.
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	p, ok := s.byID[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no product with this id")
		return
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "html"
	}
	contentType, ok := formats[format]
	if !ok {
		writeError(w, http.StatusBadRequest, "unsupported_format",
			"format must be one of html, json, csv, summary-csv")
		return
	}
	rep, price, err := s.reportFor(p, r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_parameter", err.Error())
		return
	}
	target := r.URL.RequestURI()
	sig := r.Header.Get(wire.HeaderPaymentSignature)
	if d, ok := s.replayed(sig, target); ok {
		if s.nextFault() == x402test.FaultDropAfterSettle {
			fakeserver.HangUp(w)
			return
		}
		w.Header().Set(wire.HeaderPaymentResponse, d.receipt)
		s.send(w, p, rep, format, contentType)
		return
	}
	s.mu.Lock()
	payTo := s.payTo
	s.mu.Unlock()
	var fault x402test.SettlementFault
	if sig != "" {
		fault = s.nextFault()
	}
	gate := &gateWriter{ResponseWriter: w, challenged: s.challenged}
	paywall := x402test.NewPaywall(s.fac, x402test.PaywallConfig{
		PayTo:       payTo,
		Price:       func(*http.Request) *big.Int { return price },
		Description: p.title,
		MimeType:    strings.Split(contentType, ";")[0],
		Fault:       func(*http.Request) x402test.SettlementFault { return fault },
		Settled: func(_ *http.Request, receipt string) {
			s.sold(p.id, sig, target, receipt)
		},
	}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK) // paid: the body follows once the payment settled
	}))
	paywall.ServeHTTP(gate, r)
	if gate.status != http.StatusOK {
		return // challenged, refused or failed; the paywall answered (or hung up)
	}
	s.send(w, p, rep, format, contentType)
}

// nextFault takes the fault of the next paid request from the queue.
func (s *Server) nextFault() x402test.SettlementFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return x402test.NoFault
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f
}

// challenged runs the functions AfterNextChallenge queued, once a challenge was sent.
func (s *Server) challenged() {
	s.mu.Lock()
	fs := s.onChallenge
	s.onChallenge = nil
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// reportFor returns what product p serves for the query, and its current price. The bespoke
// product reads indicators and countries from the query; a bad value is an error.
func (s *Server) reportFor(p *product, q url.Values) (*report, *big.Int, error) {
	price, _ := s.Price(p.id)
	rep := &report{id: p.id, title: p.title, description: p.description, indicators: p.indicators, economies: economies[:p.economies]}
	switch p.kind {
	case reportstore.KindBespoke:
		inds := splitList(q.Get("indicators"))
		if len(inds) == 0 {
			return nil, price, errors.New("indicators is required: a comma-separated list of indicator codes")
		}
		known := s.knownIndicators()
		for _, ind := range inds {
			if !known[ind] {
				return nil, price, fmt.Errorf("unknown indicator %q", ind)
			}
		}
		rep.indicators = inds
		if countries := splitList(q.Get("countries")); len(countries) > 0 {
			rep.economies = nil
			for _, c := range countries {
				i := slices.IndexFunc(economies, func(e economy) bool { return e.code == strings.ToUpper(c) })
				if i < 0 {
					return nil, price, fmt.Errorf("unknown country %q", c)
				}
				rep.economies = append(rep.economies, economies[i])
			}
		}
		extra := new(big.Int).Mul(customStep, big.NewInt(int64(len(inds)-1)))
		if price.Add(price, extra).Cmp(customMax) > 0 {
			price.Set(customMax)
		}
	case reportstore.KindBundle:
		rep.indicators = s.allIndicators()
	}
	return rep, price, nil
}

// allIndicators returns the indicator codes of every catalog report, each once, in catalog
// order (the large reports excluded).
func (s *Server) allIndicators() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.products {
		if p.kind != reportstore.KindCatalog || p.size > 0 {
			continue
		}
		for _, ind := range p.indicators {
			if !seen[ind] {
				seen[ind] = true
				out = append(out, ind)
			}
		}
	}
	return out
}

// knownIndicators returns the set of allIndicators.
func (s *Server) knownIndicators() map[string]bool {
	set := map[string]bool{}
	for _, ind := range s.allIndicators() {
		set[ind] = true
	}
	return set
}

// splitList splits a comma-separated query value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// send writes the body of a paid report; the status line is already written for a
// purchase, and is written here for a replay.
func (s *Server) send(w http.ResponseWriter, p *product, rep *report, format, contentType string) {
	if p.size > 0 {
		w.Header().Set("Content-Type", formats["csv"])
		w.Header().Set("Content-Length", strconv.FormatInt(largeLength(p.size), 10))
		w.WriteHeader(http.StatusOK)
		_ = writeLarge(w, p.size)
		return
	}
	body := rep.body(format)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// replayed returns the delivery of a payment already settled for the same target, when the
// store delivers replayed payments again (WithReplayedDeliveries).
func (s *Server) replayed(sig, target string) (delivery, bool) {
	if sig == "" {
		return delivery{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.delivered[sig]
	return d, ok && s.replays && d.target == target
}

// sold books a settled sale: the delivery for replays, the sale count and the re-quote.
func (s *Server) sold(id, sig, target, receipt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delivered[sig] = delivery{target: target, receipt: receipt}
	s.sales[id]++
	if s.requote != nil {
		s.prices[id] = new(big.Int).Set(s.requote(id, s.sales[id], new(big.Int).Set(s.prices[id])))
	}
}

// gateWriter sits between the paywall and the client. It records the status the paywall
// answers, and a 200 (written only after the payment settled) is held back: the report
// handler writes the body itself. It tells the store when a challenge went out.
type gateWriter struct {
	http.ResponseWriter
	challenged func()
	status     int
}

// WriteHeader records the status and passes any status but 200 through.
func (g *gateWriter) WriteHeader(code int) {
	if g.status != 0 {
		return
	}
	g.status = code
	if code != http.StatusOK {
		g.ResponseWriter.WriteHeader(code)
	}
	if code == http.StatusPaymentRequired {
		g.challenged()
	}
}

// Hijack hands the connection over, for a fault that drops it.
func (g *gateWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(g.ResponseWriter).Hijack()
}

// Write passes a challenge's body through and swallows the paywall's (empty) body of a paid
// request.
func (g *gateWriter) Write(b []byte) (int, error) {
	if g.status == 0 {
		g.WriteHeader(http.StatusOK)
	}
	if g.status == http.StatusOK {
		return len(b), nil
	}
	return g.ResponseWriter.Write(b)
}

// writeJSON writes v as a JSON response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes the fake's error body: {"error": code, "message": message}.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]string{"error": code, "message": message})
}

// sixDecimals writes an amount of atomic USDC units as the store's API description writes
// prices, dollars with all six decimals: "0.130000".
func sixDecimals(amount *big.Int) string {
	var whole, frac big.Int
	whole.QuoRem(amount, usdc.Dollars(1), &frac)
	return fmt.Sprintf("%s.%06d", whole.String(), frac.Int64())
}
