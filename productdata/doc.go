// Package productdata is a client for the marketplace product-data API (the Sorftime
// Standard API): product details and trends, category best sellers and listings, keywords,
// reviews and the other endpoints of Amazon, Walmart, Shopee, TikTok Shop, 1688 and Temu
// sites, sold in prepaid request packs. The Example functions show the calls; package
// productdatatest is an in-memory fake of the service for tests.
//
// Every call is POST {base}/api/{Endpoint} with a JSON body and the site code (Domain) in the
// body and the query. Call reaches any endpoint, with a struct, a map or RawParams; the typed
// methods (Product, Products, ProductTrend, Category, AllCategoryProducts, Keyword,
// RefreshProduct, CollectReviews, AllReviews) read Amazon's documented objects, so they take
// Amazon sites only. Every answer is an envelope {Code, Message, Data, RequestLeft,
// RequestConsumed} in HTTP 200, possibly base64 of gzip; Code is checked before Data is read.
// The names the API description gives are required (a product without ASIN, SalesPrice or
// ListingSalesVolumeOfMonth is an *sdk.DecodeError, never a zero); the others are optional.
// Every result carries the answer's request units (Units) and its Response;
// Client.RequestUnits adds them up without a request. The iterators yield items; Pages yields
// the raw pages of any paged endpoint.
//
// # Configuration
//
// See [sdk] (Client options) for the options every client shares. The base URL comes from
// PRODUCTDATA_URL (EnvURL) without WithBaseURL, and only then PRODUCTDATA_ACCOUNT_KEY
// (EnvAccountKey) gives the account key that WithAccountKey did not; the key is required and
// travels only as "Authorization: BasicAuth <key>". The service's defaults:
//
//   - pacing: DefaultRequestsPerMinute (200), across goroutines, retries and status queries;
//     EntryPlanRequestsPerMinute (100) suits the entry plan;
//   - retries: DefaultMaxAttempts (3) attempts; read endpoints are retried on network errors
//     and HTTP 429, 502, 503 and 504, requests that start a task or change a subscription
//     (Endpoint.SafeToRepeat) are sent once, and the per-minute code 501 is retried for every
//     request after the minute it asks for, capped by sdk.RetryPolicy.MaxRetryAfter;
//   - waits: RefreshProduct and CollectReviews start a task and query its status, waiting
//     DefaultWaitMinDelay (2 s), then half the time elapsed, up to DefaultWaitMaxDelay (30 s),
//     with a last query at DefaultWaitTimeout (90 s) and at most DefaultWaitAttempts (13)
//     requests; WithWait changes them. Giving up is an *sdk.WaitError matching
//     ErrTaskRunning: the task may still finish on the service.
//
// # Errors
//
// A non-zero Code is an *sdk.APIError (StatusCode 200, Code, Message) matching a sentinel:
//
//	ErrNoMoreData      11          no more data: the end of a paged list
//	ErrTaskRunning     20 21 99    the data is being fetched or calculated: ask again later
//	ErrUnauthorized    401 400 402 9, HTTP 401   key, domain, plan, IP whitelist, permission
//	ErrQuotaExhausted  4 500 502 694   credit points, monthly or daily requests used up
//	ErrRateLimited     501, HTTP 429   the per-minute limit (an *sdk.RateLimitError)
//	ErrNotFound        97 13, HTTP 404   no such ASIN or product; no reviews collected
//	ErrInvalidParams   10 14 15 17 18 19 22 23 24   a parameter or a count is out of range
//	ErrUnsupported     16          the endpoint does not exist on this site
//	ErrAlreadyExists   12 106      already collected or subscribed
//	ErrTaskFailed      98 503      a fetch or collection failed, or could not be registered
//	ErrExecutionFailed -1          the service failed; Message says why
//
// TikTok defines codes 11 to 399 per endpoint: read Message there. A product lookup answered
// with no product (charged) is a *NotFoundError, and a task that fails a *TaskError.
//
// # Time limits
//
// See [sdk.Timeouts] for the general rule. With the defaults, the longest a call can take is:
//
//   - a request: 3 attempts of 60 s and 2 waits of at most 30 s: 4 minutes, plus the pacing;
//     the iterators one request per page;
//   - CollectReviews: the starting request, then status queries until the wait's Timeout (90 s
//     after the start) and the query under way then: 5.5 minutes;
//   - RefreshProduct: the same, then the read of the product: 9.5 minutes.
package productdata
