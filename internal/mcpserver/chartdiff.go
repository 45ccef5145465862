package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/chartdiff"
)

// setupChartdiff registers the chart-difficulty tools when CHARTDIFF_URL is set, and the key
// tools when the account token is given too (rotating and deleting only with
// AllowDestructive).
func (s *Server) setupChartdiff(context.Context) error {
	base := s.env(chartdiff.EnvURL)
	if base == "" {
		return nil
	}
	apiKey, token := s.env(chartdiff.EnvAPIKey), s.env(chartdiff.EnvAccountToken)
	s.secrets.add(apiKey, token)
	opts := []chartdiff.Option{chartdiff.WithBaseURL(base), chartdiff.WithLogger(s.logger)}
	if apiKey != "" {
		opts = append(opts, chartdiff.WithAPIKey(apiKey))
	}
	if token != "" {
		opts = append(opts, chartdiff.WithAccountToken(token))
	}
	c, err := chartdiff.New(opts...)
	if err != nil {
		return fmt.Errorf("chartdiff: %w", err)
	}
	s.services.chartdiff = c
	const free = " Free (the service's hourly quota applies)."
	addTool(s, &mcp.Tool{Name: "chartdiff_chart", Annotations: readOnly,
		Description: "Returns the stored difficulty values of a rhythm-game chart (ref_const, ps_score, nps, notes); a chart never analysed has analyzed false." + free}, s.chart)
	addTool(s, &mcp.Tool{Name: "chartdiff_charts", Annotations: readOnly,
		Description: "Lists one page of charts, sorted and filtered (such as the hardest by ref_const)." + free}, s.charts)
	addTool(s, &mcp.Tool{Name: "chartdiff_player", Annotations: readOnly,
		Description: "Returns a player's profile and statistics by uid." + free}, s.player)
	addTool(s, &mcp.Tool{Name: "chartdiff_author", Annotations: readOnly,
		Description: "Lists the charts uploaded by an author (uid), each with its stored values." + free}, s.author)
	addTool(s, &mcp.Tool{Name: "chartdiff_analysis", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: ptr(true)},
		Description: "Analyses a chart's difficulty (or returns the cached analysis), waiting while the service is busy. Free, within the daily analysis quota."}, s.analysis)
	if token == "" {
		return nil
	}
	addTool(s, &mcp.Tool{Name: "chartdiff_keys", Annotations: readOnly,
		Description: "Lists the account's API keys, masked." + free}, s.chartKeys)
	addTool(s, &mcp.Tool{Name: "chartdiff_create_key", Annotations: writes,
		Description: "Creates an API key with the given scopes; the server keeps it for its later calls and shows it masked." + free}, s.chartCreateKey)
	if s.opts.AllowDestructive {
		addTool(s, &mcp.Tool{Name: "chartdiff_rotate_key", Annotations: destructive,
			Description: "Rotates an API key: the old one stops working; the server keeps the new one and shows it masked." + free}, s.chartRotateKey)
		addTool(s, &mcp.Tool{Name: "chartdiff_delete_key", Annotations: destructive,
			Description: "Deletes (revokes) an API key." + free}, s.chartDeleteKey)
	}
	return nil
}

// ChartIn names a chart.
type ChartIn struct {
	ChartID int `json:"chart_id" bounds:"min=1,max=2147483647" jsonschema:"the chart's id"`
}

// ChartOut is a chart with its stored values; absent values were never computed (not 0).
type ChartOut struct {
	ID            int      `json:"chart_id"`
	Name          string   `json:"name,omitempty"`
	Level         string   `json:"level,omitempty"`
	Difficulty    *float64 `json:"difficulty,omitempty"`
	Charter       string   `json:"charter,omitempty"`
	Uploader      int      `json:"uploader,omitempty"`
	Analyzed      bool     `json:"analyzed"`
	RefConst      *float64 `json:"ref_const,omitempty"`
	RefOfficial   *float64 `json:"ref_official,omitempty"`
	PSScore       *float64 `json:"ps_score,omitempty"`
	NPS           *float64 `json:"nps,omitempty"`
	Notes         *int     `json:"notes,omitempty"`
	EngineVersion string   `json:"engine_version,omitempty"`
	AnalyzedAt    string   `json:"analyzed_at,omitempty"`
}

// chartOut returns c as a tool result.
func chartOut(c chartdiff.Chart) ChartOut {
	out := ChartOut{ID: c.ID, Name: c.Name, Level: c.Level, Difficulty: c.Difficulty, Charter: c.Charter, Uploader: c.Uploader, Analyzed: c.Analyzed,
		RefConst: c.RefConst, RefOfficial: c.RefOfficial, PSScore: c.PSScore, NPS: c.NPS, Notes: c.Notes, EngineVersion: c.EngineVersion}
	if c.AnalyzedAt != nil {
		out.AnalyzedAt = c.AnalyzedAt.UTC().Format(time.RFC3339)
	}
	return out
}

// chartsOut returns charts as tool results.
func chartsOut(cs []chartdiff.Chart) []ChartOut {
	out := []ChartOut{}
	for _, c := range cs {
		out = append(out, chartOut(c))
	}
	return out
}

// chart returns a chart.
func (s *Server) chart(ctx context.Context, _ *mcp.CallToolRequest, in ChartIn) (ChartOut, string, error) {
	c, err := s.services.chartdiff.Chart(ctx, in.ChartID)
	if err != nil {
		return ChartOut{}, "", err
	}
	return chartOut(*c), fmt.Sprintf("chart %d %q (analyzed %t)", c.ID, c.Name, c.Analyzed), nil
}

// ChartsIn is the input of chartdiff_charts.
type ChartsIn struct {
	Page     int    `json:"page,omitempty" bounds:"min=0,max=100000" jsonschema:"the page, from 1"`
	PageSize int    `json:"page_size,omitempty" bounds:"min=0,max=200" jsonschema:"charts per page (up to 200)"`
	Sort     string `json:"sort,omitempty" bounds:"max=20" enum:"chart_id|name|level|difficulty|ref_const|ref_official|ps_score|nps|notes"`
	Order    string `json:"order,omitempty" bounds:"max=4" enum:"asc|desc"`
	Query    string `json:"query,omitempty" bounds:"max=200" jsonschema:"text the chart's name contains"`
	Level    string `json:"level,omitempty" bounds:"max=20" jsonschema:"a level, such as IN or AT"`
	Only     string `json:"only,omitempty" bounds:"max=20" enum:"official|stale"`
}

// ChartsOut is what chartdiff_charts returns.
type ChartsOut struct {
	Total    int        `json:"total"`
	Page     int        `json:"page"`
	PageSize int        `json:"page_size"`
	Charts   []ChartOut `json:"charts"`
}

// charts lists a page of charts.
func (s *Server) charts(ctx context.Context, _ *mcp.CallToolRequest, in ChartsIn) (ChartsOut, string, error) {
	p, err := s.services.chartdiff.Charts(ctx, &chartdiff.ChartsParams{Page: in.Page, PageSize: in.PageSize, Sort: chartdiff.SortField(in.Sort),
		Order: chartdiff.Order(in.Order), Query: in.Query, Level: in.Level, Filter: chartdiff.ChartFilter(in.Only)})
	if err != nil {
		return ChartsOut{}, "", err
	}
	out := ChartsOut{Total: p.Total, Page: p.Page, PageSize: p.PageSize, Charts: chartsOut(p.Charts)}
	return out, fmt.Sprintf("page %d: %d of %d charts", p.Page, len(out.Charts), p.Total), nil
}

// UIDIn names a player or author.
type UIDIn struct {
	UID int `json:"uid" bounds:"min=1,max=2147483647" jsonschema:"the player's or author's uid"`
}

// PlayerOut is a player.
type PlayerOut struct {
	UID      int      `json:"uid"`
	Name     string   `json:"name"`
	Badges   []string `json:"badges,omitempty"`
	Language string   `json:"language,omitempty"`
	Exp      *int     `json:"exp,omitempty"`
	RKS      *float64 `json:"rks,omitempty"`
	Joined   string   `json:"joined,omitempty"`
}

// player returns a player.
func (s *Server) player(ctx context.Context, _ *mcp.CallToolRequest, in UIDIn) (PlayerOut, string, error) {
	p, err := s.services.chartdiff.Player(ctx, in.UID)
	if err != nil {
		return PlayerOut{}, "", err
	}
	out := PlayerOut{UID: p.ID, Name: p.Name, Badges: p.Badges, Language: p.Language, Exp: p.Exp, RKS: p.RKS}
	if p.Joined != nil {
		out.Joined = p.Joined.UTC().Format(time.RFC3339)
	}
	return out, fmt.Sprintf("player %d %q", p.ID, p.Name), nil
}

// AuthorIn is the input of chartdiff_author.
type AuthorIn struct {
	UID      int `json:"uid" bounds:"min=1,max=2147483647" jsonschema:"the author's uid"`
	MaxPages int `json:"max_pages,omitempty" bounds:"min=0,max=5" jsonschema:"upstream pages of 30 charts to read, 1 to 5 (3 by default)"`
}

// AuthorOut is what chartdiff_author returns.
type AuthorOut struct {
	UID     int        `json:"uid"`
	Charts  []ChartOut `json:"charts"`
	HasMore bool       `json:"has_more"`
}

// author lists an author's charts.
func (s *Server) author(ctx context.Context, _ *mcp.CallToolRequest, in AuthorIn) (AuthorOut, string, error) {
	c, err := s.services.chartdiff.Charter(ctx, in.UID, &chartdiff.CharterParams{MaxPages: in.MaxPages})
	if err != nil {
		return AuthorOut{}, "", err
	}
	out := AuthorOut{UID: c.UID, Charts: chartsOut(c.Charts), HasMore: c.HasMore}
	return out, fmt.Sprintf("author %d: %d charts", c.UID, len(out.Charts)), nil
}

// AnalysisOut is what chartdiff_analysis returns.
type AnalysisOut struct {
	Chart  ChartOut `json:"chart"`
	Cached bool     `json:"cached" jsonschema:"the analysis came from the cache"`
}

// analysis analyses a chart.
func (s *Server) analysis(ctx context.Context, _ *mcp.CallToolRequest, in ChartIn) (AnalysisOut, string, error) {
	a, err := s.services.chartdiff.Analyze(ctx, in.ChartID)
	if err != nil {
		return AnalysisOut{}, "", err
	}
	text := fmt.Sprintf("chart %d %q analysed", a.Chart.ID, a.Chart.Name)
	if a.Chart.RefConst != nil {
		text += fmt.Sprintf(": ref_const %.2f", *a.Chart.RefConst)
	}
	return AnalysisOut{Chart: chartOut(a.Chart), Cached: a.Cached}, text, nil
}

// KeyInfo is an API key, masked.
type KeyInfo struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Scopes    []string `json:"scopes"`
	Mask      string   `json:"mask"`
	Status    string   `json:"status"`
	ExpiresAt string   `json:"expires_at,omitempty"`
}

// keyInfo returns k as a tool result.
func keyInfo(k chartdiff.Key) KeyInfo {
	out := KeyInfo{ID: string(k.ID), Name: k.Name, Scopes: []string{}, Mask: k.Mask, Status: string(k.Status)}
	for _, sc := range k.Scopes {
		out.Scopes = append(out.Scopes, string(sc))
	}
	if k.ExpiresAt != nil {
		out.ExpiresAt = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return out
}

// KeysOut is what chartdiff_keys returns.
type KeysOut struct {
	Keys []KeyInfo `json:"keys"`
}

// chartKeys lists the account's keys.
func (s *Server) chartKeys(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (KeysOut, string, error) {
	l, err := s.services.chartdiff.Keys(ctx)
	if err != nil {
		return KeysOut{}, "", err
	}
	out := KeysOut{Keys: []KeyInfo{}}
	for _, k := range l.Keys {
		out.Keys = append(out.Keys, keyInfo(k))
	}
	return out, fmt.Sprintf("%d keys", len(out.Keys)), nil
}

// CreateKeyIn is the input of chartdiff_create_key.
type CreateKeyIn struct {
	Name   string   `json:"name" bounds:"min=1,max=64" jsonschema:"the key's name"`
	Scopes []string `json:"scopes,omitempty" bounds:"max=3" items:"max=20" jsonschema:"charts:read, analyses:write, usage:read (the service's default when empty)"`
	Days   int      `json:"days,omitempty" bounds:"min=0,max=365" jsonschema:"30, 90 or 365 days of validity; 0 for no expiry"`
}

// HeldKey is a key the server created and now uses, masked.
type HeldKey struct {
	Key    KeyInfo `json:"key"`
	Secret string  `json:"secret" jsonschema:"the key, masked: the server keeps it and uses it for its later calls"`
}

// chartCreateKey creates a key, keeps it and uses it.
func (s *Server) chartCreateKey(ctx context.Context, _ *mcp.CallToolRequest, in CreateKeyIn) (HeldKey, string, error) {
	p := &chartdiff.CreateKeyParams{Name: in.Name, Lifetime: chartdiff.Lifetime(in.Days)}
	for _, sc := range in.Scopes {
		p.Scopes = append(p.Scopes, chartdiff.Scope(sc))
	}
	k, err := s.services.chartdiff.CreateKey(ctx, p)
	if err != nil {
		return HeldKey{}, "", err
	}
	return s.holdChartKey(k.Key, k.Secret.Reveal(), k.Secret.String())
}

// holdChartKey keeps a new key's secret and makes the client use it.
func (s *Server) holdChartKey(k chartdiff.Key, secret, masked string) (HeldKey, string, error) {
	s.secrets.add(secret)
	if err := s.services.chartdiff.SetAPIKey(secret); err != nil {
		return HeldKey{}, "", err
	}
	return HeldKey{Key: keyInfo(k), Secret: masked}, fmt.Sprintf("key %s (%s) is now the server's key", k.ID, masked), nil
}

// KeyIDIn names a key.
type KeyIDIn struct {
	ID string `json:"id" bounds:"min=1,max=64" pattern:"^[A-Za-z0-9_-]+$" jsonschema:"the key's id"`
}

// chartRotateKey rotates a key and uses the new one.
func (s *Server) chartRotateKey(ctx context.Context, _ *mcp.CallToolRequest, in KeyIDIn) (HeldKey, string, error) {
	k, err := s.services.chartdiff.RotateKey(ctx, chartdiff.KeyID(in.ID))
	if err != nil {
		return HeldKey{}, "", err
	}
	return s.holdChartKey(k.Key, k.Secret.Reveal(), k.Secret.String())
}

// chartDeleteKey deletes a key.
func (s *Server) chartDeleteKey(ctx context.Context, _ *mcp.CallToolRequest, in KeyIDIn) (KeyInfo, string, error) {
	k, err := s.services.chartdiff.DeleteKey(ctx, chartdiff.KeyID(in.ID))
	if err != nil {
		return KeyInfo{}, "", err
	}
	return keyInfo(*k), "deleted key " + string(k.ID), nil
}
