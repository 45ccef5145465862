package reportstore

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/lenient"
)

// StartInfo is the store's recommended first purchase, from the free /start operation.
type StartInfo struct {
	// ReportID is the id of the recommended report.
	ReportID string
	// Path is the recommended request path when the body gives one, such as
	// "/report/macro-gdp?format=json".
	Path string
	// Title is the recommended report's title; "" when the body does not give it.
	Title string
	// Price is the recommended report's price when the body gives a single exact amount.
	Price *Price
	// Code is the runnable client code, the Go snippet when several languages are offered.
	Code string
	// Snippets holds the client code by language when the body offers several.
	Snippets map[string]string
	// Raw is the body as the store sent it.
	Raw json.RawMessage
	// Response describes the HTTP answer.
	Response sdk.Response `json:"-"`
}

// Start returns the store's recommended first purchase with its runnable client code. The
// call is free.
func (c *Client) Start(ctx context.Context) (*StartInfo, error) {
	s, resp, err := getFree(ctx, c, "/start", parseStart)
	if err != nil {
		return nil, err
	}
	s.Response = resp
	return s, nil
}

// parseStart reads a /start body: an object naming the recommended report (at the top level
// or in an object under "recommended", "recommendation", "firstPurchase" or "report") and its
// client code (a string, or an object of language to code).
func parseStart(body []byte) (*StartInfo, error) {
	f, _, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("body is not a JSON object")
	}
	s := &StartInfo{Raw: ownCopy(body)}
	rec := f
	for _, k := range []string{"recommended", "recommendation", "firstpurchase", "report", "product"} {
		v := f.value(k)
		if v == nil {
			continue
		}
		if obj, isObj := objectFields(v); isObj {
			rec = obj
			break
		}
		if id, isText := lenient.ScalarText(v); isText {
			s.ReportID = id
			break
		}
	}
	if s.ReportID == "" {
		s.ReportID = rec.str("id", "reportid", "productid")
	}
	s.Path = rec.str("path", "url", "endpoint", "href")
	s.Title = rec.str("title", "name")
	s.Price, _ = priceField(rec, "price", "priceusd", "usd")
	for _, src := range []fields{f, rec} {
		raw, ok := src.get("code", "clientcode", "snippet", "snippets", "example", "client")
		if !ok {
			continue
		}
		if text, ok := lenient.ScalarText(raw); ok {
			s.Code = text
			break
		}
		if obj, ok := rawObject(raw); ok {
			s.Snippets, s.Code = snippetMap(obj)
			break
		}
	}
	if s.ReportID == "" && s.Path == "" {
		return nil, errors.New("no recommended report found")
	}
	return s, nil
}

// snippetMap reads an object of language to code and picks the Go snippet (or, without one,
// the first language in alphabetical order).
func snippetMap(obj map[string]json.RawMessage) (map[string]string, string) {
	out := make(map[string]string, len(obj))
	var langs []string
	for k, raw := range obj {
		if text, ok := lenient.ScalarText(raw); ok {
			out[k] = text
			langs = append(langs, k)
		}
	}
	sort.Strings(langs)
	for _, lang := range langs {
		if strings.EqualFold(lang, "go") || strings.EqualFold(lang, "golang") {
			return out, out[lang]
		}
	}
	if len(langs) > 0 {
		return out, out[langs[0]]
	}
	return out, ""
}
