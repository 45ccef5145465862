//go:build !secretscan

package httpcore

import "log/slog"

// loggerOrObserver returns the client's logger (nil when logging is off). Builds with the
// secretscan tag also route the records of clients without a logger to the secret scan.
func (c *Client) loggerOrObserver() *slog.Logger { return c.logger }

// observeError returns err; builds with the secretscan tag also show it to the secret scan.
func observeError(err error) error { return err }

// observeSecrets does nothing; builds with the secretscan tag show the values to the secret
// scan.
func observeSecrets(...string) {}
