// Package hosting is a client for the hosting API: repositories of files published as static
// sites. It creates repositories, writes, reads and deletes files, commits, branches, deploys,
// lists deployments, and publishes a whole folder in one call with DeployDir. The examples
// (Example, ExampleClient_DeployDir) show a site published end to end; package hostingtest is
// an in-memory fake of the service for tests.
//
// # Configuration
//
// The options every client has, and how they combine with the environment, are described
// once in [sdk] (Client options). What hosting adds:
//
//   - The base URL is {hosting_url} of the API description; the client adds /api/v1, and
//     SiteURL uses the address itself. Without WithBaseURL it comes from HOSTING_URL (EnvURL),
//     and then HOSTING_TOKEN (EnvToken) supplies the token WithToken did not give.
//   - The token is required: without it New returns an *sdk.MissingCredentialError. It travels
//     only in headers, as "Authorization: Bearer <token>"; it must not be empty, hold white
//     space or control characters, or start with the "Bearer " scheme word. Client.SetToken
//     replaces it while the client runs.
//   - Defaults: unpaced (the API description shows no limits); every GET, file write and
//     DELETE is retried, while creating a repository or a branch, committing and deploying are
//     sent once, as a repeat could act twice.
//
// # Gateway remedies
//
// Two remedies of the API description are applied automatically, logged (metadata only) with
// WithLogger, and counted in Client.GatewayRemedies:
//
//   - A 401 to a request whose token went in Authorization is sent once more with the token in
//     X-API-Token; when that answer is not a 401 too, the client keeps sending X-API-Token.
//   - A PUT of a file answered 403 with an HTML block page (a CDN or firewall) is sent once
//     more as a POST with content_base64; a POST blocked too matches ErrBlocked.
//
// # Files, folders and answers
//
// A file's path may be nested; each segment is escaped on its own, and a path the service
// would refuse is an *sdk.ValidationError before any request. Text that is valid UTF-8 goes as
// content; binary data, and HTML, XML and SVG whatever their bytes, as content_base64 (see
// ContentEncoding). DeployDir writes a folder with bounded concurrency, skips the files whose
// copy has the same size and hash, optionally prunes, then makes one commit and one
// deployment; if any file fails, nothing is committed and the *UploadError lists every
// failed path.
//
// Every answer is the envelope {"ok": ..., "error": ...}: ok false is an *sdk.APIError carrying
// the error text whatever the status. The members the API description names (ok, error,
// preview_url, a repository's file list, branches and head) are required; every other member
// is read leniently and the body is kept in Raw.
//
// # Errors
//
// The status sentinels are sdk's (ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict,
// ErrRateLimited); ErrBlocked matches a CDN or firewall's block page.
//
// # Time limits
//
// See [sdk.Timeouts] for the general rule. With the defaults, beyond it:
//
//   - CreateRepo, CreateBranch, Commit and Deploy are sent once: one attempt, 60 s;
//   - each gateway remedy sends a request once more, so a PutFile is at most four requests;
//   - DeployDir: the repository's information, then the files in rounds of Concurrency (8),
//     each a PutFile (or DeleteFile), then a commit and a deployment of one attempt each.
package hosting
