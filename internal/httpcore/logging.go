package httpcore

import (
	"context"
	"log/slog"
	"net/http"
)

// logAttempt writes, when the client has a logger, one metadata-only record for the current
// attempt of a request: service, method, host, path, status or error, attempt and duration.
// It never logs header values, the query string or a body.
func (c *Client) logAttempt(ctx context.Context, rs *requestState, resp *http.Response, err error) {
	logger := c.loggerOrObserver()
	if logger == nil {
		return
	}
	u := rs.url
	if resp != nil && resp.Request != nil && resp.Request.URL != nil {
		u = resp.Request.URL
	}
	red := c.redactorFor(&rs.req)
	attrs := []slog.Attr{
		slog.String("service", c.service.Name),
		slog.String("method", rs.req.Method),
		slog.String("host", u.Host),
		slog.String("path", red.text(u.EscapedPath())),
		slog.Int("attempt", rs.attempt),
		slog.Duration("duration", c.clock.Now().Sub(rs.began)),
	}
	level := slog.LevelInfo
	switch {
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", errorText(err, red)))
	case resp != nil:
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if resp.StatusCode >= 400 {
			level = slog.LevelWarn
		}
	}
	logger.LogAttrs(ctx, level, "http request", attrs...)
}
