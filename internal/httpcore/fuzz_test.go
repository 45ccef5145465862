package httpcore

import (
	"net/http"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentapis/sdk/internal/excerpt"
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
		// Every character extracted comes from at least one byte of the body (an invalid
		// byte becomes U+FFFD, three bytes long, so bytes are not the measure).
		if utf8.RuneCountInString(code) > len(body) || utf8.RuneCountInString(msg) > len(body) {
			t.Fatalf("extracted more than the body holds: %q/%q from %d bytes", code, msg, len(body))
		}
		if ex := excerpt.Of(body); !utf8.ValidString(ex) {
			t.Fatalf("excerpt %q is not valid UTF-8", ex)
		}
	})
}

// FuzzParseRateLimit feeds arbitrary rate-limit headers to the parser: it must never panic,
// and no quota number or reset it returns is negative.
func FuzzParseRateLimit(f *testing.F) {
	f.Add("100", "0", "1800")
	f.Add("", "", "1767225600")
	f.Add("-1", "abc", "99999999999999999999")
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, limit, remaining, reset string) {
		h := http.Header{}
		h.Set("X-Ratelimit-Limit", limit)
		h.Set("Ratelimit-Remaining", remaining)
		h.Set("X-Ratelimit-Reset", reset)
		if rl := ParseRateLimit(h, now); rl != nil {
			if rl.Limit != nil && *rl.Limit < 0 || rl.Remaining != nil && *rl.Remaining < 0 || rl.Reset != nil && *rl.Reset < 0 {
				t.Fatalf("negative quota value from %q %q %q", limit, remaining, reset)
			}
		}
	})
}
