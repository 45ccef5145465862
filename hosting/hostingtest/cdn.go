package hostingtest

import (
	"net/http"
	"strings"
)

// markupMarkers are the openings of raw HTML or XML markup that the CDN firewall of
// WithCDNBlockRawHTML looks for, case-insensitively, in a JSON body's content member.
var markupMarkers = []string{"<html", "<!doctype", "<script", "<svg", "<?xml", "<iframe", "<body", "<head", "<style"}

// hasRawMarkup reports whether text holds one of the markup markers.
func hasRawMarkup(text string) bool {
	lower := strings.ToLower(text)
	for _, m := range markupMarkers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

// blockPage is the HTML page a CDN firewall answers a blocked request with.
const blockPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Attention Required! | Access denied</title></head>
<body>
<h1>Sorry, you have been blocked</h1>
<p>This website is using a security service to protect itself from online attacks.
The action you just performed triggered the security solution.</p>
</body>
</html>
`

// writeBlockPage answers 403 with the firewall's HTML block page.
func writeBlockPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(blockPage))
}
