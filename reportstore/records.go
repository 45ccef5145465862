package reportstore

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Record is one observation of a report's panel: the value of one indicator for one economy
// in one year.
type Record struct {
	// Economy is the economy's code, such as "US".
	Economy string
	// Year is the year of the observation.
	Year int
	// Indicator is the indicator code, such as "NY.GDP.MKTP.CD".
	Indicator string
	// Value is the observation; nil when the cell is empty or a missing-value marker ("..",
	// "NA", "N/A", "null", "NaN", "-"). Missing data is never 0. Any other cell must be a
	// finite number in JSON's grammar: "Infinity", "1e999" or "0x1p4" is a *CSVError.
	Value *float64
}

// CSVError reports a CSV report that cannot be read as records: a required column is
// missing, or a cell of a row does not parse.
type CSVError struct {
	// Line is the 1-based line of the CSV, 0 for a problem with the header.
	Line int
	// Column is the column concerned, as the header names it.
	Column string
	// Reason says what is wrong.
	Reason string
}

// Error names the line, the column and the reason.
func (e *CSVError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("reportstore: CSV header: column %s: %s", e.Column, e.Reason)
	}
	return fmt.Sprintf("reportstore: CSV line %d: column %s: %s", e.Line, e.Column, e.Reason)
}

// Records parses a FormatCSV report into typed rows. The columns are found by their header
// names, in any order and letter case: economy (or country, country_code, iso2, iso3, code),
// year, indicator (or indicator_code, series) and value; other columns are ignored. A missing
// column or a cell that does not parse is a *CSVError. A report in another format is
// refused; FormatSummaryCSV has one row per economy of derived metrics, not these columns.
func (r *Report) Records() ([]Record, error) {
	if r.Format != FormatCSV {
		return nil, fmt.Errorf("reportstore: Records needs a %s report, this one is %s", FormatCSV, r.Format)
	}
	out := []Record{}
	for rec, err := range ScanRecords(bytes.NewReader(r.Body)) {
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// ScanRecords reads the records of a FormatCSV report from r as they arrive, such as from
// the ReportStream of OpenReport, without holding the report in memory. It reads like
// Report.Records and yields an error at most once, then stops.
func ScanRecords(r io.Reader) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		cr := csv.NewReader(r)
		cr.ReuseRecord = true
		cr.FieldsPerRecord = -1
		header, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = &CSVError{Column: "(all)", Reason: "the report is empty"}
			}
			yield(Record{}, err)
			return
		}
		cols, err := recordColumns(header)
		if err != nil {
			yield(Record{}, err)
			return
		}
		for {
			row, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(Record{}, err)
				return
			}
			line, _ := cr.FieldPos(0)
			rec, err := cols.record(row, line)
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// recordCols holds the positions of the record columns and their header names.
type recordCols struct {
	economy, year, indicator, value int
	names                           []string
}

// Column names of a CSV report, in normalised form, in order of preference.
var (
	economyColumns   = []string{"economy", "economycode", "countrycode", "country", "iso2", "iso3", "iso", "code"}
	yearColumns      = []string{"year", "date", "time"}
	indicatorColumns = []string{"indicator", "indicatorcode", "indicatorid", "series", "seriescode"}
	valueColumns     = []string{"value", "obsvalue"}
)

// recordColumns finds the record columns in a header row.
func recordColumns(header []string) (*recordCols, error) {
	names := append([]string(nil), header...)
	if len(names) > 0 {
		names[0] = strings.TrimPrefix(names[0], "\ufeff")
	}
	index := make(map[string]int, len(names))
	for i, h := range names {
		k := normKey(strings.TrimSpace(h))
		if _, dup := index[k]; !dup {
			index[k] = i
		}
	}
	c := &recordCols{names: names}
	for _, col := range []struct {
		what       string
		candidates []string
		at         *int
	}{{"economy", economyColumns, &c.economy}, {"year", yearColumns, &c.year},
		{"indicator", indicatorColumns, &c.indicator}, {"value", valueColumns, &c.value}} {
		i := slices.IndexFunc(col.candidates, func(k string) bool { _, ok := index[k]; return ok })
		if i < 0 {
			return nil, &CSVError{Column: col.what, Reason: "missing from the header (found: " + strings.Join(names, ",") + ")"}
		}
		*col.at = index[col.candidates[i]]
	}
	return c, nil
}

// record reads one data row.
func (c *recordCols) record(row []string, line int) (Record, error) {
	cell := func(i int) string {
		if i < len(row) {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	bad := func(i int, reason string) (Record, error) {
		return Record{}, &CSVError{Line: line, Column: c.names[i], Reason: reason}
	}
	rec := Record{Economy: cell(c.economy), Indicator: cell(c.indicator)}
	if rec.Economy == "" {
		return bad(c.economy, "empty")
	}
	if rec.Indicator == "" {
		return bad(c.indicator, "empty")
	}
	year, err := strconv.Atoi(cell(c.year))
	if err != nil {
		return bad(c.year, "not a year")
	}
	rec.Year = year
	if v := cell(c.value); !isMissing(v) {
		f, ok := parseValue(v)
		if !ok {
			return bad(c.value, "not a number")
		}
		rec.Value = &f
	}
	return rec, nil
}
