package reportstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentapis/sdk/internal/jsonmember"
)

// ReportPayload is the body of a FormatJSON report. The store's API description does not
// show its fields, so the known ones are read leniently and the whole object is kept in Raw.
type ReportPayload struct {
	// SchemaVersion is the payload's schema version ("schemaVersion"), as text.
	SchemaVersion string
	// ID is the report id; "" when the payload does not give it.
	ID string
	// Title and Description describe the report; "" when absent.
	Title, Description string
	// Period is the period covered, such as "2015:2025"; "" when absent.
	Period string
	// Economies lists the codes of the economies covered, in the payload's order.
	Economies []string
	// Indicators lists the indicators of the report.
	Indicators []Indicator
	// Records holds the panel's observations when the payload carries them as a list of
	// objects with economy, year, indicator and value (under "data", "panel", "records",
	// "rows" or "observations"); a null value is a nil Value.
	Records []Record
	// Source names the data's origin and licence; nil when absent.
	Source *Source
	// Raw is the payload as the store sent it, with every field this type does not name.
	Raw json.RawMessage
}

// Indicator describes one indicator of a report.
type Indicator struct {
	// Code is the indicator code, such as "NY.GDP.MKTP.CD".
	Code string
	// Name is the indicator's name; "" when absent.
	Name string
	// Unit is the unit of its values; "" when absent.
	Unit string
	// Raw is the indicator as the store sent it (an object or a bare code string).
	Raw json.RawMessage
}

// Source is the origin of a report's data.
type Source struct {
	Name    string
	License string
	URL     string
}

// JSON decodes a FormatJSON report into a ReportPayload. A report in another format, or a
// body that is not a JSON object, is an error.
func (r *Report) JSON() (*ReportPayload, error) {
	if r.Format != FormatJSON {
		return nil, fmt.Errorf("reportstore: JSON needs a %s report, this one is %s", FormatJSON, r.Format)
	}
	p, err := parsePayload(r.Body)
	if err != nil {
		return nil, fmt.Errorf("reportstore: decoding the JSON report %s: %w", r.Path, err)
	}
	return p, nil
}

// parsePayload reads a ReportPayload from JSON.
func parsePayload(body []byte) (*ReportPayload, error) {
	f, _, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("body is not a JSON object")
	}
	p := &ReportPayload{
		SchemaVersion: f.str("schemaversion", "schema", "version"),
		ID:            f.str("id", "reportid"),
		Title:         f.str("title", "name"),
		Description:   f.str("description"),
		Period:        f.str("period", "years"),
		Raw:           bytes.Clone(bytes.TrimSpace(body)),
	}
	if items, ok := arrayItems(f["economies"]); ok {
		for _, raw := range items {
			if code, ok := jsonmember.ScalarText(raw); ok {
				p.Economies = append(p.Economies, code)
			} else if obj, ok := objectFields(raw); ok {
				p.Economies = append(p.Economies, obj.str("code", "economy", "iso2", "iso3", "id"))
			}
		}
	}
	if items, ok := arrayItems(f["indicators"]); ok {
		for _, raw := range items {
			ind := Indicator{Raw: raw}
			if code, ok := jsonmember.ScalarText(raw); ok {
				ind.Code = code
			} else if obj, ok := objectFields(raw); ok {
				ind.Code = obj.str("code", "id", "indicator", "indicatorcode")
				ind.Name = obj.str("name", "title", "label")
				ind.Unit = obj.str("unit", "units")
			}
			p.Indicators = append(p.Indicators, ind)
		}
	}
	if items, k := f.array("data", "panel", "records", "rows", "observations"); k != "" {
		if p.Records, err = payloadRecords(items); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	if obj, ok := objectFields(f["source"]); ok {
		p.Source = &Source{Name: obj.str("name"), License: obj.str("license", "licence"), URL: obj.str("url", "link")}
	} else if name := f.str("source"); name != "" {
		p.Source = &Source{Name: name}
	}
	return p, nil
}

// payloadRecords reads a list of observation objects. An entry that is not an object, lacks
// an economy or indicator, or has no integer year is an error; a value that is null or a
// missing-value marker is nil, and any other non-numeric value is an error.
func payloadRecords(items []json.RawMessage) ([]Record, error) {
	out := make([]Record, 0, len(items))
	for i, raw := range items {
		obj, ok := objectFields(raw)
		if !ok {
			return nil, fmt.Errorf("entry %d is not a JSON object", i)
		}
		rec := Record{
			Economy:   obj.str(economyColumns...),
			Indicator: obj.str(indicatorColumns...),
		}
		year := obj.optInt(yearColumns...)
		if rec.Economy == "" || rec.Indicator == "" || year == nil {
			return nil, fmt.Errorf("entry %d lacks an economy, indicator or year", i)
		}
		rec.Year = *year
		if v, present := obj.get(valueColumns...); present {
			text, isText := jsonmember.ScalarText(v)
			n, isNumber := parseValue(text)
			if !isText || !isNumber && !isMissing(text) {
				return nil, fmt.Errorf("entry %d: the value is not a number", i) // not quoted: the report may echo anything
			}
			if isNumber {
				rec.Value = &n
			}
		}
		out = append(out, rec)
	}
	return out, nil
}
