// Package hosting is a client for the hosting API: repositories of files published as static
// sites. It creates repositories, writes, reads and deletes files, commits, branches, deploys,
// lists deployments, and publishes a whole folder in one call with DeployDir.
//
//	client, err := hosting.New(
//		hosting.WithBaseURL("https://host.example"), // {hosting_url}; /api/v1 is added
//		hosting.WithToken(os.Getenv("HOSTING_TOKEN")),
//	)
//	if err != nil {
//		return err
//	}
//	if _, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "my-site"}); err != nil {
//		return err
//	}
//	res, err := client.DeployDir(ctx, "my-site", os.DirFS("public"), nil)
//	if err != nil {
//		return err
//	}
//	fmt.Println(res.SiteURL) // https://host.example/site/my-site/
//
// Package hostingtest is an in-memory fake of the service for tests.
//
// # Configuration and environment
//
// New takes options: WithBaseURL, WithToken, WithHTTPClient, WithLogger, WithRetry,
// WithUserAgent and WithRequestsPerMinute. Without WithBaseURL the base URL comes from
// HOSTING_URL (EnvURL), and then HOSTING_TOKEN (EnvToken) supplies the token if WithToken did
// not. When WithBaseURL is given the environment's token is not sent, so that a token meant for
// one server never reaches another. The token is required (every call of the API needs one):
// without it New returns an *sdk.MissingCredentialError, which names HOSTING_TOKEN when it was
// set but not used, and the opt-in that sends it to an address given in code,
// WithToken(os.Getenv("HOSTING_TOKEN")). Client.SetToken replaces the token while the client
// runs.
//
// # Authentication and the gateway remedies
//
// The token travels as "Authorization: Bearer <token>", only in headers, never in a URL, and
// is scrubbed from every error and log line. Two remedies of the API description are applied
// automatically, logged (metadata only) with WithLogger, and counted in Client.GatewayRemedies:
//
//   - A 401 to a request whose token went in Authorization (a gateway that strips the header)
//     is sent once more with the token in X-API-Token. When that answer is not a 401 too, the
//     client keeps sending the token in X-API-Token from then on (GatewayRemedies.TokenHeader).
//   - A PUT of a file answered 403 with an HTML block page (a CDN or firewall that dislikes
//     the body) is sent once more as a POST to the same address, with content_base64. A 403
//     carrying the service's JSON envelope is the service's own refusal and is returned as it
//     is; a POST blocked too is returned, and matches ErrBlocked.
//
// # Files and their encoding
//
// A file's path may be nested ("assets/img/logo.png"); each segment is escaped on its own in
// the address. An empty path, a leading "/", an empty, "." or ".." segment, a backslash, a
// NUL or another control character is a *sdk.ValidationError naming the field before any
// request; repository names are one segment, checked the same way.
//
// The client chooses how content travels (see ContentEncoding): text that is valid UTF-8 goes
// as content; binary data, and HTML, XHTML, XML and SVG whatever their bytes (by extension,
// by content sniffing, and by the markup openings firewalls look for), go as content_base64.
// Client.File returns the bytes whichever way the service sends them.
//
// # Publishing a folder
//
// DeployDir writes every file of an fs.FS with bounded concurrency (8 by default), skips the
// files whose copy in the repository has the same size and hash (from the repository's file
// list: a git blob SHA-1 sha, or a sha256), optionally deletes the files the folder no longer
// holds (Prune), reports progress in files and bytes, then makes one commit and one
// deployment, and returns the deployment with the site's address. If any file still fails
// after the client's retries, nothing is committed and the *UploadError lists every failed
// path; running DeployDir again sends only what is still missing or different.
//
// # Decoding
//
// Every answer is the envelope {"ok": ..., "error": ...}. ok false is an *sdk.APIError
// carrying the error text (Message) whatever the HTTP status; a 2xx body without ok is an
// *sdk.DecodeError. The API description names only ok, error, preview_url and the members of
// a repository's information (file list, branches, head); those are required: a Deploy
// answer without preview_url, or a Repo answer without a file list, is an *sdk.DecodeError,
// never an empty value. Everything else is read leniently: the payload may sit at the top
// level or under data or result (or a name of its own such as repo, commit or deployment),
// the likely spellings are accepted (repos or repositories, files or tree, sha or sha256, id
// or sha of a commit), a value of an unexpected type is left unset rather than failing the
// answer, and every returned value keeps the body in Raw. A list that is null is empty; a
// list that is missing is an *sdk.DecodeError.
//
// # Errors and retries
//
// A failure answer is an *sdk.APIError with the status, the service's code (when it sends one)
// and message, the header and the body; a 429 is an *sdk.RateLimitError, a request without an
// answer an *sdk.RequestError. errors.Is matches ErrUnauthorized, ErrForbidden, ErrNotFound and
// ErrConflict by status (an {"ok": false} answer too), and ErrBlocked for a CDN or firewall's
// block page. GET, PUT and DELETE are retried on network errors, 429, 502, 503 and 504 with
// full-jitter backoff (WithRetry sets the policy); creating a repository or a branch,
// committing and deploying are sent once, as a repeat could act twice. Every returned value
// has a Response field (an sdk.Response) with the status, the request id and the attempt
// count of its answer.
//
// # Time limits
//
// No call waits for ever: every attempt is bounded by the client's sdk.Timeouts (WithTimeouts),
// by default 30 s for the answer's headers and 60 s for the whole attempt, and a server that
// sends nothing, or a byte at a time, ends it with an *sdk.RequestError matching
// context.DeadlineExceeded. With the defaults, the longest a call can take is:
//
//   - a request that is retried (every GET, file write and DELETE): 4 attempts of 60 s and 3
//     waits of at most 30 s (a Retry-After, capped by sdk.RetryPolicy.MaxRetryAfter): 5.5
//     minutes;
//   - CreateRepo, CreateBranch, Commit and Deploy, sent once: 60 s;
//   - each gateway remedy sends the request once more: a 401 with the token in X-API-Token, a
//     blocked PUT as a POST (so a PutFile is at most four requests);
//   - DeployDir: the repository's information, then the files in rounds of Concurrency (8),
//     each a PutFile (or a DeleteFile), then a commit and a deployment of 60 s each.
//
// To shorten it, lower the bounds with WithTimeouts, the attempts or MaxRetryAfter (or set
// StopOnLongRetryAfter) with WithRetry, or give the call a context with a deadline, which
// bounds everything; DeployDir's files go faster with a higher Concurrency.
package hosting
