// Package httpcore is the HTTP core that every service client of the SDK shares.
//
// It builds requests against a service's base URL, injects the service's credentials as
// headers (never in the URL), encodes and decodes JSON, retries idempotent requests on top of
// go-retryablehttp with full-jitter exponential backoff and a capped Retry-After, logs request
// metadata through an optional *slog.Logger, and turns failures into typed errors that carry
// the status, the service's error code and message, and never a credential.
//
// Service packages embed [Settings] in their own configuration type, expose the shared
// options through [Option] instantiations (one line each), declare their [Service] once as
// data, with its [Defaults] and its [Sentinels], check every credential with a
// [CredentialRule], and call [NewClient] once in their constructor.
package httpcore
