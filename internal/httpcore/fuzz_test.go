package httpcore

import (
	"testing"
	"unicode/utf8"
)

// FuzzDecodeErrorBody feeds arbitrary error bodies to the envelope decoder: it must never
// panic, must not extract more than the body holds, and excerpts are always valid UTF-8.
func FuzzDecodeErrorBody(f *testing.F) {
	for _, seed := range []string{
		`{"error":{"code":"invalid_chart_id","message":"m"}}`,
		`{"code":"c","message":"m"}`,
		`{"error":"rate_limit_exceeded","message":"m"}`,
		`{"ok":false,"error":"Repository not found"}`,
		`{"Code":40001,"Message":"bad"}`,
		`{"error":{"code":1e400}}`,
		`<html></html>`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, msg := DecodeErrorBody(body)
		if code != "" && !utf8.ValidString(code) && utf8.Valid(body) {
			t.Fatalf("code %q is not valid UTF-8", code)
		}
		if len(code) > len(body) || len(msg) > len(body)*3 {
			t.Fatalf("extracted more than the body holds: %d/%d from %d bytes", len(code), len(msg), len(body))
		}
		if ex := Excerpt(body); !utf8.ValidString(ex) {
			t.Fatalf("excerpt %q is not valid UTF-8", ex)
		}
	})
}
