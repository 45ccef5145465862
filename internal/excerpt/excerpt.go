// Package excerpt cuts the short quotes of a body that errors of the SDK carry: enough to
// recognise an answer, never a whole page.
package excerpt

import (
	"strings"
	"unicode/utf8"
)

// MaxBytes is the most of a body an excerpt quotes.
const MaxBytes = 200

// Of returns at most the first MaxBytes bytes of b, cut on a rune boundary and made valid
// UTF-8, marking a cut with "...".
func Of(b []byte) string {
	cut := len(b) > MaxBytes
	if cut {
		end := MaxBytes
		for end > 0 && !utf8.RuneStart(b[end]) {
			end--
		}
		b = b[:end]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if cut {
		s += "..."
	}
	return s
}
