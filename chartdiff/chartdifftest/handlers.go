package chartdifftest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentapis/sdk/internal/fakeserver"
)

// authMode says how an endpoint identifies its caller.
type authMode int

const (
	// authKey: an optional API key, validated when present; anonymous otherwise.
	authKey authMode = iota
	// authToken: the web account token in x-hm-token; not counted against quotas.
	authToken
	// authUsage: an API key, or else the account token.
	authUsage
	// authNone: nobody is validated (the diagnostics endpoint must answer any header).
	authNone
)

// call is one request being answered.
type call struct {
	w      http.ResponseWriter
	r      *http.Request
	params []string
	who    *caller
}

// handler answers a call with a status and a JSON body, or an error.
type handler func(s *Server, c *call) (int, any, *errorResponse)

// route is one endpoint.
type route struct {
	method  string
	pattern string // segments after /api/v1, "{}" for a parameter
	mode    authMode
	scope   string
	handle  handler
}

// routes are the endpoints of the API description.
var routes = []route{
	{http.MethodGet, "charts/{}", authKey, scopeChartsRead, (*Server).getChart},
	{http.MethodGet, "charts", authKey, scopeChartsRead, (*Server).listCharts},
	{http.MethodGet, "stats", authKey, scopeChartsRead, (*Server).stats},
	{http.MethodGet, "charters/{}", authKey, scopeChartsRead, (*Server).charter},
	{http.MethodGet, "players/{}", authKey, scopeChartsRead, (*Server).player},
	{http.MethodPost, "analyses", authKey, scopeAnalysesWrite, (*Server).analyze},
	{http.MethodGet, "usage", authUsage, scopeUsageRead, (*Server).usage},
	{http.MethodGet, "meta", authNone, "", (*Server).meta},
	{http.MethodGet, "openapi.json", authKey, "", (*Server).openapi},
	{http.MethodGet, "keys", authToken, "", (*Server).listKeys},
	{http.MethodPost, "keys", authToken, "", (*Server).createKey},
	{http.MethodPatch, "keys/{}", authToken, "", (*Server).updateKey},
	{http.MethodPost, "keys/{}/rotate", authToken, "", (*Server).rotateKey},
	{http.MethodDelete, "keys/{}", authToken, "", (*Server).deleteKey},
}

// match returns the route of method and path with its parameters.
func match(method, path string) (*route, []string) {
	rest, ok := strings.CutPrefix(path, prefix+"/")
	if !ok {
		return nil, nil
	}
	segs := strings.Split(rest, "/")
	for i := range routes {
		rt := &routes[i]
		pat := strings.Split(rt.pattern, "/")
		if rt.method != method || len(pat) != len(segs) {
			continue
		}
		var params []string
		ok := true
		for j, p := range pat {
			switch {
			case p == "{}":
				params = append(params, segs[j])
			case p != segs[j]:
				ok = false
			}
		}
		if ok {
			return rt, params
		}
	}
	return nil, nil
}

// route authenticates, authorizes and counts the request, then runs the endpoint.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	rt, params := match(r.Method, r.URL.Path)
	if rt == nil {
		s.write(w, fail(http.StatusNotFound, "not_found", "no endpoint "+r.Method+" "+r.URL.Path))
		return
	}
	c := &call{w: w, r: r, params: params}
	if e := s.admit(rt, c); e != nil {
		s.write(w, e)
		return
	}
	status, body, e := rt.handle(s, c)
	if e != nil {
		s.write(w, e)
		return
	}
	fakeserver.WriteJSON(w, status, body)
}

// admit identifies the caller, checks the scope and counts the request.
func (s *Server) admit(rt *route, c *call) *errorResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	who := &caller{peer: fakeserver.PeerHost(c.r)}
	key := presentedKey(c.r)
	switch rt.mode {
	case authToken:
		acc, e := s.checkToken(c.r)
		if e != nil {
			return e
		}
		who.account = acc
		c.who = who
		return nil
	case authUsage:
		if key == "" {
			acc, e := s.checkToken(c.r)
			if e != nil {
				return e
			}
			who.account = acc
			c.who = who
			return nil
		}
		fallthrough
	case authKey:
		if key != "" {
			k, e := s.checkKey(key)
			if e != nil {
				return e
			}
			who.key = k
		}
	}
	if who.key != nil && rt.scope != "" && !who.key.hasScope(rt.scope) {
		return fail(http.StatusForbidden, "insufficient_scope", "the API key lacks the "+rt.scope+" scope")
	}
	c.who = who
	return s.limit(c.w.Header(), who)
}

// parseID reads a path or body id: digits only, positive, at most 18 digits.
func parseID(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// badRequest is a 400 for a parameter the table of error codes does not name.
func badRequest(message string) *errorResponse {
	return fail(http.StatusBadRequest, "invalid_request", message)
}

// getChart answers GET /charts/{chart_id}.
func (s *Server) getChart(c *call) (int, any, *errorResponse) {
	id, ok := parseID(c.params[0])
	if !ok {
		return 0, nil, fail(http.StatusBadRequest, "invalid_chart_id", "chart_id must be a positive integer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.cacheDown {
		return 0, nil, fail(http.StatusBadGateway, "cache_unavailable", "the database is temporarily unavailable")
	}
	if ch := s.cache[id]; ch != nil {
		return http.StatusOK, ch.wire(), nil
	}
	return http.StatusOK, chartJSON{ChartID: id}, nil
}

// listCharts answers GET /charts.
func (s *Server) listCharts(c *call) (int, any, *errorResponse) {
	q := c.r.URL.Query()
	page, size := 1, 50
	if v := q.Get("page"); v != "" {
		n, ok := parseID(v)
		if !ok {
			return 0, nil, badRequest("page must be a positive integer")
		}
		page = n
	}
	if v := q.Get("pageSize"); v != "" {
		n, ok := parseID(v)
		if !ok || n > 200 {
			return 0, nil, badRequest("pageSize must be between 1 and 200")
		}
		size = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	field := "chart_id"
	if v := q.Get("sort"); v != "" {
		allowed := false
		for _, f := range s.cfg.sortFields {
			allowed = allowed || f == v
		}
		if !allowed {
			e := fail(http.StatusBadRequest, "invalid_sort_field", "sort must be one of the fields in x-allowed-sort")
			e.header = http.Header{"X-Allowed-Sort": {strings.Join(s.cfg.sortFields, ",")}}
			return 0, nil, e
		}
		field = v
	}
	desc := false
	switch q.Get("order") {
	case "", "asc":
	case "desc":
		desc = true
	default:
		return 0, nil, badRequest("order must be asc or desc")
	}
	f := listFilter{q: q.Get("q"), level: q.Get("level"), only: q.Get("only"), build: q.Get("build")}
	if utf8.RuneCountInString(f.q) > 60 {
		return 0, nil, badRequest("q must be at most 60 characters")
	}
	switch f.only {
	case "", "official", "stale":
	default:
		return 0, nil, badRequest("only must be official or stale")
	}
	if f.build != "" && f.only != "stale" {
		return 0, nil, badRequest("build is meaningful only with only=stale")
	}
	if s.cfg.cacheDown {
		return 0, nil, fail(http.StatusBadGateway, "cache_unavailable", "the database is temporarily unavailable")
	}
	var hits []*Chart
	for _, ch := range s.cache {
		if f.keep(ch) {
			hits = append(hits, ch)
		}
	}
	sortCharts(hits, field, desc)
	out := []chartJSON{}
	for i := (page - 1) * size; i < len(hits) && i < page*size; i++ {
		out = append(out, hits[i].wire())
	}
	return http.StatusOK, map[string]any{"total": len(hits), "page": page, "pageSize": size, "charts": out}, nil
}

// stats answers GET /stats.
func (s *Server) stats(*call) (int, any, *errorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.statsDown {
		return 0, nil, fail(http.StatusBadGateway, "stats_unavailable", "the statistics service is temporarily unavailable")
	}
	analyzed := 0
	for _, ch := range s.cache {
		if ch.Analyzed {
			analyzed++
		}
	}
	coverage := 0.0
	if len(s.cache) > 0 {
		coverage = float64(analyzed) / float64(len(s.cache))
	}
	active := 0
	since := s.Now().Add(-day)
	for _, acc := range s.accounts {
		for _, k := range acc.keys {
			if k.lastUsed != nil && k.lastUsed.After(since) {
				active++
				break
			}
		}
	}
	return http.StatusOK, map[string]any{
		"charts_stored": len(s.cache), "charts_analyzed": analyzed, "coverage": coverage,
		"active_users": active, "engine_version": EngineVersion,
	}, nil
}

// charter answers GET /charters/{uid}, reading upstream pages of 30 up to maxPages.
func (s *Server) charter(c *call) (int, any, *errorResponse) {
	uid, ok := parseID(c.params[0])
	if !ok {
		return 0, nil, fail(http.StatusBadRequest, "invalid_uid", "uid must be a positive integer")
	}
	maxPages := 3
	if v := c.r.URL.Query().Get("maxPages"); v != "" {
		n, ok := parseID(v)
		if !ok || n > 5 {
			return 0, nil, badRequest("maxPages must be between 1 and 5")
		}
		maxPages = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.upstreamDown {
		return 0, nil, fail(http.StatusBadGateway, "upstream_unavailable", "the upstream game service is unavailable; retry later")
	}
	ids := s.authors[uid]
	pages := max((len(ids)+29)/30, 1)
	read := min(pages, maxPages)
	s.pageRead += read
	out := []chartJSON{}
	for _, id := range ids[:min(len(ids), read*30)] {
		out = append(out, s.chartAnywhere(id).wire())
	}
	return http.StatusOK, map[string]any{"uid": uid, "pages_read": read, "has_more": len(ids) > read*30, "charts": out}, nil
}

// player answers GET /players/{uid}.
func (s *Server) player(c *call) (int, any, *errorResponse) {
	uid, ok := parseID(c.params[0])
	if !ok {
		return 0, nil, fail(http.StatusBadRequest, "invalid_uid", "uid must be a positive integer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.upstreamDown {
		return 0, nil, fail(http.StatusBadGateway, "upstream_unavailable", "the upstream game service is unavailable; retry later")
	}
	if uid > Players {
		return 0, nil, fail(http.StatusNotFound, "player_not_found", "no player has uid "+strconv.Itoa(uid))
	}
	name := "player" + strconv.Itoa(uid)
	switch {
	case uid <= len(authorNames):
		name = authorNames[uid-1]
	case uid == AuthorProlific:
		name = "Prolific"
	}
	joined := time.Date(2023, 1, uid, 8, 0, 0, 0, time.UTC)
	var stats any
	if uid != PlayerNoStats {
		stats = map[string]any{"records": uid * 17, "charts_played": uid * 5, "full_combos": uid * 2, "average_accuracy": 0.9 + float64(uid)/1000}
	}
	return http.StatusOK, map[string]any{
		"id": uid, "name": name, "avatar": "https://example.invalid/avatars/" + strconv.Itoa(uid) + ".png",
		"badges": []string{}, "language": "en-US", "bio": "", "exp": uid * 1000, "rks": 10 + float64(uid)/4,
		"joined": joined.Format(time.RFC3339), "last_login": joined.AddDate(1, 0, 0).Format(time.RFC3339),
		"stats": stats,
	}, nil
}

// analyze answers POST /analyses: a cached chart at once, otherwise an engine run in one of
// two slots.
func (s *Server) analyze(c *call) (int, any, *errorResponse) {
	var body map[string]json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, 1<<16))
	if err := dec.Decode(&body); err != nil || body == nil {
		return 0, nil, badRequest("the body must be a JSON object with chart_id")
	}
	for k := range body {
		if k != "chart_id" {
			return 0, nil, badRequest("only chart_id is accepted in this version")
		}
	}
	id, ok := parseID(string(bytes.TrimSpace(body["chart_id"])))
	if !ok {
		return 0, nil, fail(http.StatusBadRequest, "invalid_chart_id", "chart_id must be a positive integer")
	}

	s.mu.Lock()
	if s.cfg.cacheDown {
		s.mu.Unlock()
		return 0, nil, fail(http.StatusBadGateway, "cache_unavailable", "the database is temporarily unavailable")
	}
	if ch := s.cache[id]; ch != nil && ch.Analyzed {
		out := ch.wire()
		s.mu.Unlock()
		cached := true
		out.Cached = &cached
		return http.StatusOK, out, nil
	}
	q := s.quotas()
	dayBucket := ""
	if c.who.key != nil {
		dayBucket = "analyses:" + c.who.key.id
		if full, secs := s.quotaHeaders(http.Header{}, dayBucket, q.AnalysesPerDay, day); full {
			s.mu.Unlock()
			return 0, nil, exceeded(secs, "daily analysis quota of the API key exceeded")
		}
	}
	if s.running >= 2 {
		s.mu.Unlock()
		e := fail(http.StatusServiceUnavailable, "analysis_busy", "both analysis slots are busy; retry shortly")
		if s.cfg.busyAfter > 0 {
			e.header = http.Header{"Retry-After": {strconv.Itoa(s.cfg.busyAfter)}}
		}
		return 0, nil, e
	}
	src := s.chartAnywhere(id)
	if src == nil {
		s.mu.Unlock()
		return 0, nil, fail(http.StatusBadGateway, "analysis_failed", "the chart could not be downloaded from the upstream")
	}
	if src.SizeBytes > MaxChartBytes {
		s.mu.Unlock()
		return 0, nil, fail(http.StatusBadGateway, "analysis_failed", "the chart exceeds the 60 MB download limit")
	}
	if dayBucket != "" {
		s.consume(dayBucket, day)
	}
	s.running++
	gate, delay := s.gate, s.cfg.analysisDelay
	s.mu.Unlock()

	done := s.waitEngine(c.r, gate, delay)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	if !done {
		return 0, nil, fail(http.StatusBadGateway, "analysis_failed", "the analysis was interrupted")
	}
	ch := *src
	engine(&ch, s.Now())
	ch.Analyzed = true
	s.cache[id] = &ch
	if c.who.key != nil {
		c.who.key.analyses++
	}
	out := ch.wire()
	cached := false
	out.Cached = &cached
	return http.StatusOK, out, nil
}

// waitEngine waits for a held gate and the engine delay; it reports false when the request
// ended first (the client went away, or the server closed).
func (s *Server) waitEngine(r *http.Request, gate chan struct{}, delay time.Duration) bool {
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return false
		}
	}
	return fakeserver.Wait(r.Context(), delay)
}

// usage answers GET /usage for the account of the key or token.
func (s *Server) usage(c *call) (int, any, *errorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	acc := c.who.account
	if c.who.key != nil {
		acc = c.who.key.account
	}
	q := s.quotas()
	now := s.Now()
	keys := []map[string]any{}
	totalReq, totalAn := 0, 0
	for _, k := range acc.keys {
		hourUsed, _ := s.used("key:"+k.id, hour)
		dayUsed, _ := s.used("analyses:"+k.id, day)
		keys = append(keys, map[string]any{
			"id": k.id, "name": k.name, "status": k.status(now),
			"requests_total": k.requests, "analyses_total": k.analyses,
			"requests_this_hour": hourUsed, "analyses_today": dayUsed,
		})
		totalReq += k.requests
		totalAn += k.analyses
	}
	return http.StatusOK, map[string]any{
		"account_id": acc.id, "requests_total": totalReq, "analyses_total": totalAn,
		"limits": map[string]int{
			"requests_per_hour": q.KeyPerHour, "analyses_per_day": q.AnalysesPerDay,
			"anonymous_requests_per_hour": q.AnonymousPerHour,
		},
		"keys": keys,
	}, nil
}

// diagHeaders are the authentication headers /meta?diag=1 reports.
var diagHeaders = []string{"x-phm-key", "authorization", "x-api-key", "x-hm-token"}

// meta answers GET /meta, with the received length of each auth header when diag=1.
func (s *Server) meta(c *call) (int, any, *errorResponse) {
	out := map[string]any{"service": "chartdiff", "version": "1.2.0", "build": "fake", "engine_version": EngineVersion}
	if c.r.URL.Query().Get("diag") == "1" {
		lengths := map[string]int{}
		for _, h := range diagHeaders {
			lengths[h] = len(c.r.Header.Get(h))
		}
		out["diag"] = map[string]any{"headers": lengths}
	}
	return http.StatusOK, out, nil
}

// openapi answers GET /openapi.json.
func (s *Server) openapi(*call) (int, any, *errorResponse) {
	return http.StatusOK, contract(), nil
}
