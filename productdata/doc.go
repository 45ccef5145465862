// Package productdata is a client for the marketplace product-data API (the Sorftime
// Standard API): product details and trends, category best sellers and listings, keywords,
// reviews and the other endpoints of Amazon, Walmart, Shopee, TikTok Shop, 1688 and Temu
// sites, sold in prepaid request packs.
//
//	client, err := productdata.New(
//		productdata.WithBaseURL("https://standardapi.sorftime.com"), // {data_api_url}; /api is added
//		productdata.WithAccountKey(os.Getenv("PRODUCTDATA_ACCOUNT_KEY")),
//	)
//	if err != nil {
//		return err
//	}
//	p, err := client.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
//	if err != nil {
//		return err
//	}
//	fmt.Println(p.Title, p.SalesPrice, p.ListingSalesVolumeOfMonth)
//
// Package productdatatest is an in-memory fake of the service for tests.
//
// # Configuration and environment
//
// New takes options: WithBaseURL, WithAccountKey, WithHTTPClient, WithLogger, WithRetry,
// WithUserAgent and WithRequestsPerMinute. Without WithBaseURL the base URL comes from
// PRODUCTDATA_URL (EnvURL), and then PRODUCTDATA_ACCOUNT_KEY (EnvAccountKey) supplies the
// account key that WithAccountKey did not. When WithBaseURL is given the environment's key is
// not sent, so that a key meant for one server never reaches another. The key is required:
// without it New returns an *sdk.MissingCredentialError, which names PRODUCTDATA_ACCOUNT_KEY
// when it was set but not used, and the opt-in that sends it to an address given in code,
// WithAccountKey(os.Getenv("PRODUCTDATA_ACCOUNT_KEY")). SetAccountKey replaces it later.
//
// # Requests
//
// Every call is POST {base}/api/{Endpoint} with a JSON body, sent with
// "Content-Type: application/json;charset=UTF-8" and "Authorization: BasicAuth <key>"
// (the key travels only there: never in a URL, a log line or an error). The site code goes
// in the body as "domain", as the API description says, and in the query as ?domain=, where
// the service reads it. Domain has a constant for every site (AmazonUS ... TemuEU); any other
// code is an *sdk.ValidationError before a request is sent. The account endpoints (CoinQuery,
// CoinStream, RequestStreamMonth) take NoDomain.
//
// Call reaches any endpoint, with the Endpoint constants of the documented ones and a struct,
// a map or RawParams of parameters under the service's names. The typed methods read
// Amazon's documented objects, so they take Amazon sites only: Product and Products
// (ProductRequest, up to 10 ASINs), ProductTrend, Category (CategoryRequest),
// AllCategoryProducts (CategoryProducts), Keyword (KeywordRequest), RefreshProduct,
// CollectReviews and AllReviews (ProductReviewsQuery). Each takes its parameters as a
// <Method>Params struct by pointer (ProductsParams, CategoryParams, ...), validated before
// any request. Other platforms' objects have other fields (Temu and TikTok use ProductId,
// Price, MonthlySaleCount): read them with Call into a type of your own, or into a
// *json.RawMessage.
//
// # Answers and business codes
//
// Every answer is an envelope {Code, Message, Data, RequestLeft, RequestConsumed} in HTTP 200,
// whatever happened; some platforms spell it in camelCase on errors ({"code":11,"message":
// ...}), and some answers come as base64 of gzip, whole or in Data: the client reads all of
// these. Code is checked before Data is read. Code 0 is success; any other code is an
// *sdk.APIError (StatusCode 200, Code, Message) matching one of the sentinels with errors.Is:
//
//	ErrNoMoreData      11          no more data: the end of a paged list
//	ErrTaskRunning     20 21 99    the data is being fetched or calculated: ask again later
//	ErrUnauthorized    401 400 402 9, HTTP 401   key, domain, plan, IP whitelist, permission
//	ErrQuotaExhausted  4 500 502 694   credit points, monthly or daily requests used up
//	ErrRateLimited     501, HTTP 429   the per-minute limit
//	ErrNotFound        97 13, HTTP 404   no such ASIN or product; no reviews collected
//	ErrInvalidParams   10 14 15 17 18 19 22 23 24   a parameter or a count is out of range
//	ErrUnsupported     16          the endpoint does not exist on this site
//	ErrAlreadyExists   12 106      already collected or subscribed
//	ErrTaskFailed      98 503      a fetch or collection failed, or could not be registered
//	ErrExecutionFailed -1          the service failed; Message says why
//
// ErrUnauthorized, ErrNotFound and ErrRateLimited are the sdk sentinels of the same names, so
// an HTTP 401, 404 or 429 matches them too; code 501, like a 429, is an *sdk.RateLimitError.
// Any other code is an *sdk.APIError with its code and message and no sentinel (TikTok defines
// codes 11 to 399 per endpoint).
//
// # Decoding
//
// Product carries the service's official field names (SalesPrice, the price after coupon;
// ListingSalesVolumeOfMonth, the units sold in 30 days; Price, ListPrice, RatingsCount, ...),
// money in the site's smallest unit. The service answers a wrong field name with an empty
// value rather than an error, so the names the API description gives are required: a product
// without ASIN, SalesPrice or ListingSalesVolumeOfMonth is an *sdk.DecodeError, never a zero.
// The fields it does not show are optional: a nil pointer, "" or nil slice when the answer did
// not carry them or carried another type, never a false 0; Raw keeps a copy of every object as
// sent. A product lookup answered with no product (the service charges for it) is a
// *NotFoundError. A list of products or reviews that is null, or absent beside a total of 0,
// is empty; one that is null or absent while a total beside it says more is an
// *sdk.DecodeError. Every answer is read once by encoding/json: the envelope first, with Data
// kept as sent, then Data into its type once the Code says success.
// Trends arrive flat ([date, value, date, value, ...]) and decode as a Series of Points.
//
// # Paging
//
// AllCategoryProducts and AllReviews iterate over items, and AllPages over the raw pages of
// any paged endpoint, fetching each page when the loop reaches it (each page is charged;
// breaking out of the loop sends no further request). They end cleanly at the "no more data"
// code, after an empty page, and (AllPages) before a page identical to the previous one.
//
// # Asynchronous tasks and polling
//
// RefreshProduct (ProductRealtimeRequest, its status query, then ProductRequest) and
// CollectReviews (ProductReviewsCollection and its status query; then read with AllReviews)
// start a task and poll for it. Each poll is a request, so the schedule asks rarely: it waits
// PollOptions.MinDelay (2 s) after the start, then half the time elapsed so far, up to
// MaxDelay (30 s), with a last poll at the Timeout (90 s), at most MaxPolls (12) polls. A task
// is therefore noticed at most half its running time after it finished, or 2 s for short
// ones: tasks of 1, 5, 20, 45 and 85 s take 1, 3, 6, 8 and 10 polls. A Progress callback sees
// every wait. A failed task is a *TaskError; a wait that ends first is a *WaitError matching
// ErrTaskRunning, and the task may still finish on the service. Requests that start a task are
// sent once; a status query that meets the per-minute limit or a network failure is tried
// again on the schedule.
//
// # Pacing, retries and request units
//
// The client paces itself at 200 requests a minute (WithRequestsPerMinute(
// EntryPlanRequestsPerMinute) for the entry plan's 100), across goroutines, retries and polls
// included. A request is sent at most three times (WithRetry): read endpoints are retried on
// network errors and HTTP 429, 502, 503 and 504, with full-jitter backoff; requests that start
// a task or change a subscription (see Endpoint.SafeToRepeat) are not, since the first attempt
// may have acted and been charged. The per-minute limit code 501 is retried for every request
// (the service did not act on it) after the minute it asks for, capped by
// sdk.RetryPolicy.MaxRetryAfter (30 s by default).
//
// Every result carries a Meta with the answer's RequestLeft and RequestConsumed (Units) and
// its HTTP response (an sdk.Response); Client.Counters adds up, without a request, the
// requests sent (every attempt and poll) and the units the answers reported.
//
// # Time limits
//
// No call waits for ever: every attempt is bounded by the client's sdk.Timeouts (WithTimeouts),
// by default 30 s for the answer's headers and 60 s for the whole attempt, and a server that
// sends nothing, or a byte at a time, ends it with an *sdk.RequestError matching
// context.DeadlineExceeded (inside a *WaitError when it was a status query). With the
// defaults, the longest a call can take is:
//
//   - a request: 3 attempts of 60 s and 2 waits of at most 30 s (the per-minute limit's
//     minute, or a Retry-After, capped by sdk.RetryPolicy.MaxRetryAfter): 4 minutes, plus the
//     pacing between attempts (0.3 s at 200 a minute, more when goroutines share the
//     client); the iterators one request per page;
//   - CollectReviews: the starting request, then status queries until PollOptions.Timeout
//     (90 s after the start) and the query under way then: 5.5 minutes;
//   - RefreshProduct: the same, then the read of the product: 9.5 minutes.
//
// To shorten it, lower the bounds with WithTimeouts, the attempts or MaxRetryAfter (or set
// StopOnLongRetryAfter) with WithRetry, the wait for a task with PollOptions.Timeout, or give
// the call a context with a deadline, which bounds everything, pacing included.
package productdata
