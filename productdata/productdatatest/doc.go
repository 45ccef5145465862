// Package productdatatest is an in-memory fake of the marketplace product-data API, for tests,
// examples and anyone who wants to exercise code that uses package productdata without a
// network or a paid request pack.
//
//	srv := productdatatest.NewServer()
//	defer srv.Close()
//	client, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(productdatatest.DefaultKey))
//	if err != nil {
//		return err
//	}
//	_, err = client.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
//
// The fake models the real service as its published documentation (its own and third-party
// copies of it) describes it, including the quirks a client must survive. It does not import
// package productdata, so a field the client misnames is caught by the client's end-to-end
// tests. Below, [service] marks behaviour taken from that documentation and [fake] a choice
// the fake makes where the documentation is silent.
//
// # Transport
//
//   - POST /api/<Endpoint> [service]. The name matches in any letter case [service]. A name
//     with "_" answers HTTP 404 [service]; so do a name the service does not have and a path
//     beyond the name [fake], with the text body "Not Found". A name the service has but the
//     fake does not implement (KeywordExtends, CoinQuery, ...) answers code 401, as for an
//     endpoint the account's plan does not include [fake]. Any method but POST answers HTTP
//     405 with Allow: POST [fake].
//   - Authorization: BasicAuth <key> [service]: the scheme word exactly "BasicAuth" (letter
//     case included), one space, an accepted key (DefaultKey, or those of WithKey). Anything
//     else, or no header, is code 401 "Endpoint not open: invalid Account-SK" in HTTP 200
//     with RequestLeft 0 [service: a non-zero code; the code and message are the fake's], or
//     HTTP 401 carrying the same envelope with WithHTTP401OnBadKey [service, third-party].
//   - Content-Type: application/json, with no parameter but charset=UTF-8 (any letter case)
//     [service]; anything else is code 10 [fake].
//   - The body is empty or a JSON object. Member names match in any letter case (the
//     documentation writes both asin and ASIN) [service]; a member given twice in different
//     letter cases is code 10, unknown members are ignored, strings must be JSON strings and
//     integers JSON integers [fake].
//   - The site code domain is read from the query (?domain=N, where the real service reads
//     it) and from the body member domain (where the API description puts it), an integer in
//     either; one of them is enough. Missing, not an integer, given twice in the query, not a
//     published site code, or different in the query and the body: code 401 "Endpoint not
//     open: <what is wrong>" [service: code 401; the reasons are the fake's].
//
// A request goes through these checks in order: the faults injected with InjectFaults, the
// route, the method, the key, the IP whitelist (400), the per-minute limit (501), the content
// type (10), the body (10), the domain (401), the endpoint's availability on the site (16 or
// 401), the balance (694), the failures of WithFailEvery (-1), then the endpoint.
//
// # Envelope
//
//   - Successes, and failures on the Amazon, Shopee and Walmart sites, are HTTP 200 with
//     {"RequestLeft":N,"RequestConsumed":N,"Code":N,"Message":...,"Data":...} in that order
//     [service]. Message is null on success and English text otherwise; Data is null on
//     failure, except code 12, which carries the existing task's id [fake]. The Walmart site
//     adds "RequestCount":0 at the end [service].
//   - Failures on the 1688, Temu and TikTok sites are {"code":N,"message":"..."} alone
//     [service]; WithLowercaseErrors sends this form for every site and every non-zero code,
//     99 and 20 included [fake].
//   - Every answer of the Shopee and Walmart sites is the standard base64 (with padding) of
//     the gzip of the envelope's JSON [service], sent as text/plain; charset=utf-8 [fake].
//     WithGzipBase64Body does the same for other endpoints. WithGzipBase64Data instead sends
//     Data of code-0 answers as a JSON string holding the base64 of the gzip of the payload's
//     JSON [fake: a form clients should accept too].
//
// # Codes
//
// The numbers and meanings are the service's code table [service]; when the fake answers each
// one, and whether it consumes request units, are [fake] unless marked.
//
//	 -1  execution failed          WithFailEvery                                            not charged
//	  0  success                                                                            charged
//	 10  parameter error           content type, body, a parameter missing, mistyped,
//	                               out of range, or a malformed date                        not charged
//	 11  no data                   past the last page; NoDataNodeID; NoDataKeyword; a trend
//	                               range before the listing date; a status query finding
//	                               no task                                                  charged
//	 12  data already exists       a review collection while one runs or within 2 hours of
//	                               its success [service: the 2 hours]                       charged
//	 13  no first-page reviews     ProductReviewsQuery before any collection               charged
//	 15  ASIN query count exceeded more than 10 ASINs in ProductRequest [service]          not charged
//	 16  not supported on site     an Amazon endpoint on a Shopee site; a CategoryRequest
//	                               look-back on sites 5, 11, 12, 14 [service: no look-back] not charged
//	 20  being calculated          ProductReviewsQuery while its collection runs           charged
//	 23  older than two years      a date range starting over two years before today       not charged
//	 97  ASIN does not exist       an ASIN starting with MissingASINPrefix                  charged [service]
//	 98  collection failed         a failed task (FailingASINPrefix) reported               charged
//	 99  collecting                ProductRealtimeRequest starting or awaiting a refresh
//	                               [service]                                                charged
//	400  IP not whitelisted        WithIPWhitelist                                          not charged
//	401  endpoint not open         a bad key, a bad domain, an endpoint closed on the
//	                               site's platform or not implemented [service]             not charged
//	501  per-minute limit          WithPerMinuteLimit                                       not charged
//	694  requests exhausted        a call dearer than the balance                           not charged
//
// Code 4 (insufficient credit) is never sent: the fake keeps a single balance of request
// units, and running out of it is 694. The service's other codes (14, 17 to 19, 21, 22, 24,
// 106, 402, 500, 502, 503) belong to endpoints or plans the fake does not model.
//
// # Sites and endpoints
//
// The fake accepts exactly the published site codes [service]: Amazon 1 to 14 (1 US, 2 GB,
// 3 DE, 4 FR, 5 IN, 6 CA, 7 JP, 8 ES, 9 IT, 10 MX, 11 AE, 12 AU, 13 BR, 14 SA), Walmart 21,
// Shopee 201 to 208, 1688 601, Temu 701 and 705, TikTok 301, 303 to 307, 309 and 312.
// CategoryTree is open on every site; every other endpoint on the Amazon sites only [fake].
// Elsewhere they answer code 16 on the Shopee sites, whose code table has it, and 401 on the
// Walmart, 1688, Temu and TikTok sites [fake, from the platforms' code tables].
//
// # Request units and limits
//
// The account starts with WithRequests units (DefaultRequests); RequestLeft and
// SetRequestLeft read and set the balance. Every executed call of every endpoint consumes 1
// unit, status queries and polls included, as the API description says: one call, one unit
// [service]. WithCost sets another price per endpoint. The service publishes higher prices
// for some endpoints (ProductRequest 1 per ASIN and 2 per ASIN for trends over 15 days;
// CategoryTree, CategoryRequest, CategoryProducts and KeywordSearchResults 5; a CategoryRequest
// look-back 10 per 3 days) and calls status queries free, so a client should read
// RequestConsumed rather than assume 1. A refused call reports RequestConsumed 0 and the
// balance (0 to a caller without a valid key).
//
// The per-minute limit (WithPerMinuteLimit, default DefaultPerMinuteLimit) counts every call
// with a valid key: a call arriving at t counts until t+60s on the fake's clock, and a call
// arriving when as many calls as the limit already count is refused with 501 and does not
// count itself [fake: the service documents the code and the 200 QPM, not the window].
//
// # Data
//
// Every value derives from the parameters through a hash: the same request gives the same
// data in every run. Amounts are in the site's minor currency unit (US cents, yen, ...)
// [service].
//
//   - Products (ProductObject) carry the service's member names [service]: ASIN, ParentAsin,
//     Title, Photo, EBCPhoto, StoreName, Brand, ProductType, Price, ListPrice, Coupon (above 0
//     an amount, below 0 a percentage), SalesPrice, ListingSalesVolumeOfDaily,
//     ListingSalesOfDaily, ListingSalesVolumeOfMonth, ListingSalesOfMonth, BuyboxSeller,
//     BuyboxSellerId, BuyboxSellerAddress, IsFBA, FbaFee, FbaDetetail (sic), ShipCost,
//     PlatformFee, Profit, ProfitRate, OnlineDate, OnlineDays, Ratings, RatingsCount, Rank,
//     Category, BsrCategory, VariationASINCount, SellerCount, HasVideo, APlus, HasBrandStore,
//     Size, Weight, ExtraSavings, BrandPromotion, DealType. ParentAsin is null without
//     variations, BuyboxSellerAddress null when Amazon sells, BrandPromotion and DealType null
//     when there is none [service]. BsrCategory is [[name, NodeId, rank]] with three strings
//     [fake]. The four sales members are -1 for an ASIN ending in UnestimatedSuffix
//     [service: -1 means cannot estimate]. Listing dates count back from the fake's start.
//   - ProductRequest {ASIN: one or up to 10 comma-separated, Trend: 1 (default) or 2,
//     QueryTrendStartDt, QueryTrendEndDt: yyyy-MM-dd} [service]. Data is always a list [fake],
//     of the products that exist, in the order asked, each once. With Trend 1 they carry
//     PriceTrend, RankTrend, RatingsCountTrend, RatingsTrend and SalesVolumeTrend, flat
//     [date, value, ...] arrays [service] with dates as integers yyyyMMdd [fake], over the
//     last 15 days unless QueryTrendStartDt says otherwise; an end without a start is ignored
//     [service].
//   - ProductTrend {asin, dateRange: "yyyyMMdd,yyyyMMdd" (default: the last 30 days),
//     trendType} [service]: Data is one flat [yyyyMMdd, value, ...] array, trendType 1 price
//     (default), 2 rank, 3 daily sales volume, 4 ratings count, 5 rating [fake], clipped to the
//     days from the listing date to today.
//   - CategoryTree {}: a list of {Id, ParentId, NodeId, Name, CNName, URL} [service], parents
//     before children, 1,256 nodes, about 200 kB of JSON [fake].
//   - CategoryRequest {NodeId: a string of digits, QueryStart, QueryDate: yyyy-MM-dd,
//     QueryDays: 3 to 40} [service]: {"Products":[the best-selling 100]} [service]. A
//     look-back needs QueryDate with QueryStart or QueryDays, spans 3 to 40 days, and ends at
//     least 2 days before today [service].
//   - CategoryProducts {NodeId, Page: 1-based, default 1, Range} [service]: a list of up to
//     100 products per page [service: 100 a page; the bare list is the fake's], best sellers
//     first; a node has 120 to 349 products, Range limits how many [fake].
//   - KeywordRequest {Keyword}: {Keyword, SearchVolume, CPC, SearchVolumeTrend, CPCTrend,
//     ProductCount} [service], the trends flat [yyyyMM, value, ...] over the 24 months before
//     this one [service form].
//   - KeywordSearchResults {Keyword, Page} [service: Keyword]: a list of up to 100 products a
//     page, each with OrganicRank and SponsoredRank (0 when not sponsored) [fake names]; 40 to
//     259 results [fake]. Keywords match in any letter case and spacing.
//
// # Asynchronous tasks
//
// Tasks live on the fake's clock: a task finishes WithTaskDuration (DefaultTaskDuration)
// after it starts, or WithTaskDurations for its ASIN; its state is worked out at each call.
// Tasks belong to the site they were started on. Every status query is a call that consumes a
// unit, as every poll does in the API description (the service's own pages call them free).
//
//   - ProductRealtimeRequest {ASIN, Update: hours, 1 to 120, default 24} [service]: code 0 with
//     the product (no trends) when it was refreshed less than Update hours ago; otherwise it
//     starts a refresh and answers 99, and answers 99 while the refresh runs without starting
//     another [service: 0 and 99]. Every product was last refreshed 1 to 72 hours before the
//     fake started [fake], so Update 1 always starts a refresh and Update 73 or more never
//     does. After a failed refresh the next call answers 98 once, and the one after starts a
//     new refresh [fake].
//   - ProductRealtimeRequestStatusQuery {ASINs: [...]} [service]: a list of strings
//     "<ASIN>:<status>:<finish>" [service] in the order asked, status 0 running, 1 done,
//     3 failed, 5 no such ASIN [service], finish "yyyy-MM-dd HH:mm:ss" for a done task
//     [service] in UTC [fake] and "--" otherwise. ASINs without a task are left out; code 11
//     when nothing is left [fake].
//   - ProductReviewsCollection {ASIN, Page: 1 to 10 (default 1), CollectType: 0 or 1, Star: a
//     list such as "1,5" of 1 to 5, 10 (one to three stars) and 11 (four and five)} [service]:
//     Data is the task id, a string of digits [service]; ids count from 1 in each fake,
//     refresh tasks included [fake]. The task gathers 10 reviews per page per star filter
//     [service].
//   - ProductReviewsCollectionStatusQuery {QueryDate: yyyy-MM-dd, default today} [service]:
//     the status strings of the collections started on the site that day in the service's
//     time zone, UTC+8 (China Standard Time) [fake: the zone is not published], in the order
//     they started [service form]; code 11 when there are none [fake].
//   - ProductReviewsQuery {ASIN, Page, Star: 1 to 5, 10 or 11} [service]: up to 100 reviews a
//     page [service] of the latest collection, newest first, each {ReviewId, Title, Content,
//     Star, IsVerified, ReviewDate, ReviewerName, HelpfulCount, ImageUrls, CollectedAt}
//     [service]. Code 13 before any collection, 20 while it runs, 98 when it failed, 11 past
//     the last page [fake].
//
// # Faults and inspection
//
// The fake shares its vocabulary with the SDK's other fakes (see package sdktest):
//
//   - URL and Close; Client, an *http.Client for the server;
//   - Requests, every request received in order, as the shared sdktest.Request (time on the
//     fake's clock, method, path, query, headers with the Authorization value replaced by
//     sdktest.Redacted, body, status); Exchanges, the same records with what the fake made of
//     each (Endpoint, AuthScheme, Authorized, Params, Domain, Code, Consumed);
//     RequestCount(method, path) counts them, by the path as sent ("/api/ProductRequest");
//   - InjectFaults, which answers the next matching requests with an sdktest.Fault before any
//     check, executing and charging nothing: a Status of 200 with a Code answers that business
//     code in HTTP 200 ({"Code": n, "Message": ..., "Data": null}, the fake's message for the
//     code when Message is empty), another status its text as a gateway does, Drop hangs up,
//     and Delay waits first (a wait Close ends).
//
// Its own options and inspection: WithFailEvery makes every n-th executed call fail with code
// -1; WithIPWhitelist refuses other addresses; WithClock sets the clock, which a test moves on
// with a fake one (sdktest.NewClock); RequestLeft and SetRequestLeft read and set the balance.
//
// Stability: the fake follows the SDK's versioning. Its behaviour follows the service's
// published documentation; where that is silent (the [fake] choices above) it answers as a
// real server plausibly would, and those choices may be refined in minor releases. Tests
// should assert on what the service documents rather than on the fake's own choices.
package productdatatest
