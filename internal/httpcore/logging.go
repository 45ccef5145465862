package httpcore

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// attemptLog tracks the attempt number of one request and, when the client has a logger,
// writes one metadata-only record per attempt: method, host, path, status or error, attempt
// and duration. It never logs header values, the query string or a body.
type attemptLog struct {
	client  *Client
	req     *http.Request
	redact  redactor
	attempt int
	began   time.Time
}

// start records the beginning of attempt n (1-based).
func (a *attemptLog) start(n int) {
	a.attempt = n
	a.began = time.Now()
}

// finish logs the outcome of the current attempt.
func (a *attemptLog) finish(ctx context.Context, resp *http.Response, err error) {
	logger := a.client.logger
	if logger == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("service", a.client.service.Name),
		slog.String("method", a.req.Method),
		slog.String("host", a.req.URL.Host),
		slog.String("path", a.req.URL.EscapedPath()),
		slog.Int("attempt", a.attempt),
		slog.Duration("duration", time.Since(a.began)),
	}
	level := slog.LevelInfo
	switch {
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", errorText(err, a.redact)))
	case resp != nil:
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if resp.StatusCode >= 400 {
			level = slog.LevelWarn
		}
	}
	logger.LogAttrs(ctx, level, "http request", attrs...)
}
