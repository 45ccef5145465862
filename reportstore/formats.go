package reportstore

// Format is the delivery format of a report, the value of the format query parameter. It is
// an open type: a value the store adds later can be passed as Format("..."), and a value the
// store does not serve is answered with ErrUnsupportedFormat.
type Format string

// The formats of the store's API description.
const (
	// FormatHTML is the default: an HTML page (text/html). The empty Format means it too.
	FormatHTML Format = "html"
	// FormatJSON is a ReportPayload object (application/json); see Report.JSON.
	FormatJSON Format = "json"
	// FormatCSV is the panel as CSV (text/csv), one row per economy, year and indicator; see
	// Report.Records.
	FormatCSV Format = "csv"
	// FormatSummaryCSV is a CSV summary with one row per economy (text/csv).
	FormatSummaryCSV Format = "summary-csv"
)

// orDefault returns f, or FormatHTML when f is empty.
func (f Format) orDefault() Format {
	if f == "" {
		return FormatHTML
	}
	return f
}
