package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402/usdc"
)

// setupReportstore registers the report store's tools when REPORTSTORE_URL is set.
func (s *Server) setupReportstore(context.Context) error {
	base := s.env(reportstore.EnvURL)
	if base == "" {
		return nil
	}
	opts := []reportstore.Option{reportstore.WithBaseURL(base), reportstore.WithLogger(s.logger)}
	if s.payer != nil {
		opts = append(opts, reportstore.WithPayer(s.payer))
	}
	if payTo := s.env(EnvReportstorePayTo); payTo != "" {
		opts = append(opts, reportstore.WithExpectedPayee(payTo))
	}
	c, err := reportstore.New(opts...)
	if err != nil {
		return fmt.Errorf("reportstore: %w", err)
	}
	s.services.reportstore = c
	addTool(s, &mcp.Tool{Name: "reportstore_catalog", Annotations: readOnly,
		Description: "Lists the report store's products (macroeconomic reports, bespoke and bundle products) with their live price per fetch in USDC. Free."},
		s.reportCatalog)
	addTool(s, &mcp.Tool{Name: "reportstore_preview", Annotations: readOnly,
		Description: "Returns the free latest-year cross-section of a report: one value per economy. Free."},
		s.reportPreview)
	addTool(s, &mcp.Tool{Name: "reportstore_quote", Annotations: readOnly,
		Description: "Asks the store for the live price of a report in a format, without paying, and says whether the server's spending policy would pay it. Free."},
		s.reportQuote)
	addTool(s, &mcp.Tool{Name: "reportstore_report", Annotations: paid,
		Description: "Buys a report (one fetch) in html, json, csv or summary-csv and returns it with the payment's receipt. Costs the store's live price (see reportstore_quote, $0.07 to $0.28 for the catalog reports), paid in USDC over x402 from the server's budget."},
		s.reportBuy)
	return nil
}

// CatalogIn is the input of reportstore_catalog.
type CatalogIn struct {
	Limit int `json:"limit,omitempty" bounds:"min=0,max=500" jsonschema:"the most products to return (0: all, up to 500)"`
}

// CatalogProduct is one product of the catalog.
type CatalogProduct struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Kind        string `json:"kind"`
	Price       *Money `json:"price,omitempty" jsonschema:"the live price per fetch; absent when the entry gives no single price"`
	PriceText   string `json:"price_text,omitempty"`
	Economies   *int   `json:"economies,omitempty"`
	Period      string `json:"period,omitempty"`
}

// CatalogOut is what reportstore_catalog returns.
type CatalogOut struct {
	Products []CatalogProduct `json:"products"`
	Total    int              `json:"total" jsonschema:"how many products the store lists"`
}

// reportCatalog lists the store's products.
func (s *Server) reportCatalog(ctx context.Context, _ *mcp.CallToolRequest, in CatalogIn) (CatalogOut, string, error) {
	cat, err := s.services.reportstore.Catalog(ctx)
	if err != nil {
		return CatalogOut{}, "", err
	}
	out := CatalogOut{Products: []CatalogProduct{}, Total: len(cat.Products)}
	for i, p := range cat.Products {
		if in.Limit > 0 && i == in.Limit {
			break
		}
		cp := CatalogProduct{ID: p.ID, Title: p.Title, Description: p.Description, Kind: string(p.Kind), PriceText: p.PriceText, Economies: p.Economies, Period: p.Period}
		if p.Price != nil {
			cp.Price = moneyPtr(p.Price)
		}
		out.Products = append(out.Products, cp)
	}
	return out, fmt.Sprintf("%d products (%d returned)", out.Total, len(out.Products)), nil
}

// ReportIDIn is the input of reportstore_preview.
type ReportIDIn struct {
	ID string `json:"id" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the report id, such as macro-gdp"`
}

// PreviewRow is one economy of a preview.
type PreviewRow struct {
	Economy   string              `json:"economy"`
	Name      string              `json:"name,omitempty"`
	Year      *int                `json:"year,omitempty"`
	Indicator string              `json:"indicator,omitempty"`
	Value     *float64            `json:"value,omitempty" jsonschema:"absent when the data is missing (never 0 for missing)"`
	Values    map[string]*float64 `json:"values,omitempty"`
}

// PreviewOut is what reportstore_preview returns.
type PreviewOut struct {
	ID   string       `json:"id"`
	Year *int         `json:"year,omitempty"`
	Rows []PreviewRow `json:"rows"`
}

// reportPreview returns a report's free preview.
func (s *Server) reportPreview(ctx context.Context, _ *mcp.CallToolRequest, in ReportIDIn) (PreviewOut, string, error) {
	p, err := s.services.reportstore.Preview(ctx, in.ID)
	if err != nil {
		return PreviewOut{}, "", err
	}
	out := PreviewOut{ID: p.ID, Year: p.Year, Rows: []PreviewRow{}}
	for _, r := range p.Rows {
		out.Rows = append(out.Rows, PreviewRow{Economy: r.Economy, Name: r.Name, Year: r.Year, Indicator: r.Indicator, Value: r.Value, Values: r.Values})
	}
	return out, fmt.Sprintf("preview of %s: %d economies", in.ID, len(out.Rows)), nil
}

// ReportIn is the input of reportstore_quote and reportstore_report.
type ReportIn struct {
	ID        string `json:"id" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the report id, such as macro-gdp"`
	Format    string `json:"format,omitempty" bounds:"max=20" enum:"html|json|csv|summary-csv" jsonschema:"html (default), json, csv or summary-csv"`
	MaxAmount string `json:"max_amount,omitempty" bounds:"max=20" pattern:"^\\$?[0-9]{1,9}(\\.[0-9]{1,6})?$" jsonschema:"the most this call may pay in dollars, such as 0.50; the policy's limits apply too"`
}

// QuoteOut is what reportstore_quote returns.
type QuoteOut struct {
	ID       string `json:"id"`
	Format   string `json:"format"`
	Price    Money  `json:"price"`
	PayTo    string `json:"pay_to"`
	Network  string `json:"network"`
	WouldPay bool   `json:"would_pay" jsonschema:"whether the spending policy would pay this price now (the budget's room is checked at purchase)"`
	Refusal  string `json:"refusal,omitempty" jsonschema:"why the policy would refuse it"`
}

// reportQuote quotes a report without paying.
func (s *Server) reportQuote(ctx context.Context, _ *mcp.CallToolRequest, in ReportIn) (QuoteOut, string, error) {
	q, err := s.services.reportstore.Quote(ctx, in.ID, reportstore.Format(in.Format))
	if err != nil {
		return QuoteOut{}, "", err
	}
	out := QuoteOut{ID: q.ID, Format: string(q.Format), Price: money(q.Amount), PayTo: q.PayTo, Network: q.Network, WouldPay: q.Refusal == nil}
	if q.Refusal != nil {
		out.Refusal = q.Refusal.Error()
	} else if s.payer == nil {
		out.WouldPay, out.Refusal = false, errNoWallet.Error()
	}
	text := fmt.Sprintf("%s (%s) costs %s", out.ID, out.Format, usdc.Format(q.Amount))
	if !out.WouldPay {
		text += "; the server would not pay it: " + out.Refusal
	}
	return out, text, nil
}

// ReportOut is what reportstore_report returns.
type ReportOut struct {
	ID          string `json:"id"`
	Format      string `json:"format"`
	ContentType string `json:"content_type"`
	Text        string `json:"text,omitempty" jsonschema:"the report, when it is text"`
	Base64      string `json:"base64,omitempty"`
	Bytes       int    `json:"bytes" jsonschema:"the report's size"`
	Truncated   bool   `json:"truncated" jsonschema:"the report was longer than the server returns and was cut (it was paid in full)"`
	Paid        *Paid  `json:"paid,omitempty"`
}

// reportBuy buys a report.
func (s *Server) reportBuy(ctx context.Context, _ *mcp.CallToolRequest, in ReportIn) (ReportOut, string, error) {
	if s.payer == nil {
		return ReportOut{}, "", errNoWallet
	}
	ctx, err := withMax(ctx, in.MaxAmount)
	if err != nil {
		return ReportOut{}, "", err
	}
	r, err := s.services.reportstore.Report(ctx, in.ID, reportstore.Format(in.Format))
	if err != nil {
		var pm *reportstore.PayeeMismatchError
		if errors.As(err, &pm) {
			return ReportOut{}, "", fmt.Errorf("refused by the allowed payee of the store: %w", err)
		}
		return ReportOut{}, "", paymentError(err)
	}
	out := ReportOut{ID: r.ID, Format: string(r.Format), ContentType: r.ContentType, Bytes: len(r.Body)}
	body := r.Body
	if max := s.fetch.rules.MaxBytes; len(body) > max {
		body, out.Truncated = body[:max], true
	}
	if utf8.Valid(body) {
		out.Text = string(body)
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(body)
	}
	transaction := ""
	if r.Receipt != nil {
		transaction = r.Receipt.Transaction
	}
	out.Paid = paidFrom(r.Payment, transaction)
	text := fmt.Sprintf("bought %s (%s, %d bytes)", r.ID, out.ContentType, out.Bytes)
	if out.Paid != nil {
		text += " for " + out.Paid.Amount.Dollars
	}
	return out, text, nil
}
