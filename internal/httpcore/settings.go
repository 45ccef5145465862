package httpcore

import (
	"cmp"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/agentapis/sdk"
)

// retryDefaults fills the zero fields of p with the service's defaults svc, then with the
// SDK's; a service that turns StopOnLongRetryAfter on turns it on for every policy.
func retryDefaults(p, svc sdk.RetryPolicy) sdk.RetryPolicy {
	p.MaxAttempts = cmp.Or(p.MaxAttempts, svc.MaxAttempts, sdk.DefaultMaxAttempts)
	p.BaseDelay = cmp.Or(p.BaseDelay, svc.BaseDelay, sdk.DefaultBaseDelay)
	p.MaxDelay = cmp.Or(p.MaxDelay, svc.MaxDelay, sdk.DefaultMaxDelay)
	p.MaxRetryAfter = cmp.Or(p.MaxRetryAfter, svc.MaxRetryAfter, sdk.DefaultMaxRetryAfter)
	p.StopOnLongRetryAfter = p.StopOnLongRetryAfter || svc.StopOnLongRetryAfter
	return p
}

// validateRetry refuses negative counts and durations, and a MaxDelay below BaseDelay.
func validateRetry(p sdk.RetryPolicy) error {
	switch {
	case p.MaxAttempts < 0:
		return errors.New("MaxAttempts must not be negative")
	case p.BaseDelay < 0, p.MaxDelay < 0, p.MaxRetryAfter < 0:
		return errors.New("delays must not be negative")
	case p.MaxDelay != 0 && p.MaxDelay < p.BaseDelay:
		return errors.New("MaxDelay must not be below BaseDelay")
	}
	return nil
}

// Settings holds the configuration every service client shares. Each service package embeds
// it in its own configuration type, which the shared options then reach through [Option].
type Settings struct {
	baseURL    *url.URL
	httpClient *http.Client
	logger     *slog.Logger
	retry      sdk.RetryPolicy
	timeouts   sdk.Timeouts
	userAgent  string
	// clock is the option's clock, nil for the service's or the wall clock.
	clock sdk.Clock
	// wait is the option's wait policy, whose zero fields take the service's defaults.
	wait sdk.WaitPolicy
	// requestsPerMinute overrides the service's default pacing when set.
	requestsPerMinute *int
	// urlVar is the variable LoadEnv read; urlFromEnv reports that the base URL came from it.
	urlVar     string
	urlFromEnv bool
}

// settings returns s itself. The service configuration types embed Settings, so this method is
// promoted to them and lets the generic options reach the shared part.
func (s *Settings) settings() *Settings { return s }

// configurer is a service package's configuration type: one that embeds Settings.
type configurer interface{ settings() *Settings }

// Option configures a client of one service. Service packages declare their own option type
// with the same underlying type and convert the shared options to it, one line each:
//
//	type Option func(*config) error
//	func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }
type Option[C configurer] func(C) error

// Configure applies opts to cfg in order, skipping nil ones, and returns the first error; a
// *ValidationError from an option gets the service's name. It serves the options of any
// type of the module, not only those of a client.
func Configure[C any, O ~func(C) error](service string, cfg C, opts []O) error {
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(cfg); err != nil {
			var ve *sdk.ValidationError
			if errors.As(err, &ve) && ve.Service == "" {
				ve.Service = service
			}
			return err
		}
	}
	return nil
}

// LoadEnv completes the settings from the environment: the base URL from the variable urlVar
// when no WithBaseURL option gave one, and then, only when the base URL came from there, the
// values of the secret variables that are set, returned by name. An explicitly addressed
// server therefore never receives credentials that were meant for another. A malformed URL
// in urlVar is a *ValidationError of service naming the variable.
func (s *Settings) LoadEnv(service, urlVar string, secretVars ...string) (map[string]string, error) {
	s.urlVar = urlVar
	if s.baseURL != nil || urlVar == "" {
		return nil, nil
	}
	raw := os.Getenv(urlVar)
	if raw == "" {
		return nil, nil
	}
	u, err := parseBaseURL(raw)
	if err != nil {
		return nil, &sdk.ValidationError{Service: service, Field: urlVar, Reason: err.Error()}
	}
	s.baseURL, s.urlFromEnv = u, true
	secrets := make(map[string]string, len(secretVars))
	for _, name := range secretVars {
		if v := os.Getenv(name); v != "" {
			secrets[name] = v
		}
	}
	return secrets, nil
}

// Timeouts returns the client's timeouts, defaults filled in.
func (s *Settings) Timeouts() sdk.Timeouts { return timeoutDefaults(s.timeouts) }

// Clock returns the clock of WithClock, or the wall clock: the one every wait, pacing and
// timestamp of the client reads.
func (s *Settings) Clock() sdk.Clock { return cmp.Or(s.clock, sdk.SystemClock()) }

// Logger returns the logger of WithLogger, nil when logging is off.
func (s *Settings) Logger() *slog.Logger { return s.logger }

// Wait returns the policy of WithWait over the service's default d: each zero field of the
// option takes d's. A delay the option gave alone moves the other one of d when they would
// cross, so that MinDelay never exceeds MaxDelay. A service package calls it once in New,
// with its Service.Defaults.Wait.
func (s *Settings) Wait(d sdk.WaitPolicy) sdk.WaitPolicy {
	w := s.wait
	w.Timeout = cmp.Or(w.Timeout, d.Timeout)
	w.MaxAttempts = cmp.Or(w.MaxAttempts, d.MaxAttempts)
	w.MinDelay = cmp.Or(w.MinDelay, d.MinDelay)
	w.MaxDelay = cmp.Or(w.MaxDelay, d.MaxDelay)
	if w.Progress == nil {
		w.Progress = d.Progress
	}
	if w.MaxDelay != 0 && w.MaxDelay < w.MinDelay {
		if s.wait.MaxDelay != 0 {
			w.MinDelay = w.MaxDelay
		} else {
			w.MaxDelay = w.MinDelay
		}
	}
	return w
}

// MissingCredential returns the error of a client without the credential it needs for
// operation ("New" when it needs it for every call), which option and the variable envVar
// give. When envVar is set but was not used, because the base URL was given in code and not
// by LoadEnv's variable, the error says so, why, and how to send it anyway. Call it after
// LoadEnv.
func (s *Settings) MissingCredential(service, operation, credential, option, envVar string, sentinels ...error) *sdk.MissingCredentialError {
	reason := "give it with " + option
	if envVar != "" {
		reason += ", or " + envVar + " with the address in " + s.urlVar
	}
	if envVar != "" && os.Getenv(envVar) != "" && !s.urlFromEnv {
		reason = envVar + " is set but was not used: a credential from the environment is sent only to the address in " +
			s.urlVar + ", and this client's address was given with WithBaseURL; to send it there, pass " +
			option + "(os.Getenv(\"" + envVar + "\"))"
	}
	return &sdk.MissingCredentialError{Service: service, Operation: operation, Credential: credential, Reason: reason, Sentinels: sentinels}
}

// parseBaseURL accepts an absolute http or https URL with a host and no user information,
// query or fragment. Its error never quotes the URL, which might carry a password, and says
// what to change for the mistakes of a first run: an empty value (os.Getenv of an unset
// variable), a host without its scheme ("127.0.0.1:9999", "api.example.com/v1"), a line break
// read with the value.
func parseBaseURL(raw string) (*url.URL, error) {
	switch {
	case raw == "":
		return nil, errors.New(`the base URL is empty (os.Getenv returns "" for a variable that is not set)`)
	case strings.TrimSpace(raw) != raw:
		return nil, errors.New("the base URL has spaces or a line break around it")
	case !strings.Contains(raw, "://"):
		return nil, errors.New("the base URL has no scheme: begin it with http:// or https://")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a valid URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("scheme must be http or https")
	case u.Host == "":
		return nil, errors.New("missing host")
	case u.User != nil:
		return nil, errors.New("user information is not allowed in the URL; credentials travel in headers")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, errors.New("a query is not allowed in the base URL")
	case u.Fragment != "":
		return nil, errors.New("a fragment is not allowed in the base URL")
	}
	return u, nil
}

// optionError wraps a refusal of a shared option as a ValidationError; the service name is
// filled in by NewClient.
func optionError(field, reason string) error {
	return &sdk.ValidationError{Field: field, Reason: reason}
}

// WithBaseURL sets the service's address as its API description writes it (such as
// https://host or https://host/proxy); the client adds the service's own path prefix and keeps
// any path the address has.
func WithBaseURL[C configurer](rawURL string) Option[C] {
	return func(c C) error {
		u, err := parseBaseURL(rawURL)
		if err != nil {
			return optionError("base URL", "WithBaseURL: "+err.Error())
		}
		c.settings().baseURL = u
		return nil
	}
}

// WithHTTPClient sets the *http.Client that sends requests; it must not be nil. Its Transport,
// Timeout and Jar are used as they are; the client copies it and never changes the original.
func WithHTTPClient[C configurer](hc *http.Client) Option[C] {
	return func(c C) error {
		if hc == nil {
			return optionError("HTTP client", "must not be nil")
		}
		c.settings().httpClient = hc
		return nil
	}
}

// WithLogger sets the *slog.Logger that receives one record per attempt with metadata only
// (method, host, path, status, attempt, duration). Logging is off by default and with nil.
func WithLogger[C configurer](l *slog.Logger) Option[C] {
	return func(c C) error {
		c.settings().logger = l
		return nil
	}
}

// WithRetry sets the retry policy; zero fields take the service's defaults (Service.Defaults)
// and then the SDK's, and RetryPolicy{MaxAttempts: 1} turns retries off.
func WithRetry[C configurer](p sdk.RetryPolicy) Option[C] {
	return func(c C) error {
		if err := validateRetry(p); err != nil {
			return optionError("retry policy", err.Error())
		}
		c.settings().retry = p
		return nil
	}
}

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body; zero fields keep their defaults (see sdk.Timeouts,
// which also gives the worst case of a whole call).
func WithTimeouts[C configurer](t sdk.Timeouts) Option[C] {
	return func(c C) error {
		if t.Header < 0 || t.Attempt < 0 || t.Idle < 0 {
			return optionError("timeouts", "must not be negative")
		}
		c.settings().timeouts = t
		return nil
	}
}

// WithRequestsPerMinute paces the client: every attempt it sends, whatever the goroutine,
// waits its turn so that no 60-second window holds more than n; 0 turns pacing off. It
// overrides the service's own default (Service.Defaults).
func WithRequestsPerMinute[C configurer](n int) Option[C] {
	return func(c C) error {
		if n < 0 {
			return optionError("requests per minute", "must not be negative")
		}
		c.settings().requestsPerMinute = &n
		return nil
	}
}

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the SDK's
// User-Agent.
func WithUserAgent[C configurer](product string) Option[C] {
	return func(c C) error {
		product = strings.TrimSpace(product)
		if product == "" {
			return optionError("user agent", "must not be empty")
		}
		if strings.ContainsFunc(product, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return optionError("user agent", "must not contain control characters")
		}
		c.settings().userAgent = product
		return nil
	}
}

// WithClock sets the clock that paces the client, times its waits and reads its answers'
// times; it must not be nil. Tests give a fake one (sdktest.NewClock).
func WithClock[C configurer](clock sdk.Clock) Option[C] {
	return func(c C) error {
		if clock == nil {
			return optionError("clock", "must not be nil")
		}
		c.settings().clock = clock
		return nil
	}
}

// WithWait sets how long and how often the client waits for work its service does in the
// background; zero fields take the service's defaults (Service.Defaults). Negative values, and
// a MaxDelay below MinDelay, are refused.
func WithWait[C configurer](w sdk.WaitPolicy) Option[C] {
	return func(c C) error {
		switch {
		case w.Timeout < 0 || w.MinDelay < 0 || w.MaxDelay < 0:
			return optionError("wait policy", "durations must not be negative")
		case w.MaxAttempts < 0:
			return optionError("wait policy", "MaxAttempts must not be negative")
		case w.MaxDelay != 0 && w.MaxDelay < w.MinDelay:
			return optionError("wait policy", "MaxDelay must not be below MinDelay")
		}
		c.settings().wait = w
		return nil
	}
}
