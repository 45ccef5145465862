package productdatatest

import (
	"slices"
	"strings"
	"time"
)

// request is one call that passed the pipeline's checks, as its handler sees it.
type request struct {
	site site
	p    params
	now  time.Time
}

// result is what a handler answers: a code, its message (none for 0), the payload, and
// whether the call consumes request units.
type result struct {
	code    int
	message string
	data    any
	charge  bool
}

// success is code 0 with data; it consumes units.
func success(data any) result { return result{code: codeOK, data: data, charge: true} }

// failure is an executed call that found nothing or failed: it consumes units, as the
// service charges a call for a missing product.
func failure(code int, message string) result {
	return result{code: code, message: message, charge: true}
}

// refusal is a request the service turns down before executing it: nothing consumed.
func refusal(code int, message string) result { return result{code: code, message: message} }

// paramFailure is a parameter error (code 10): nothing executed, nothing consumed. The
// error's text names the parameter.
func paramFailure(err error) result { return result{code: codeBadParams, message: err.Error()} }

// endpoint is an endpoint the fake serves.
type endpoint struct {
	name string
	// platforms are those whose sites open the endpoint.
	platforms []platform
	handle    func(*Server, *request) result
}

// amazonOnly and everywhere are the platform sets of the endpoints.
var (
	amazonOnly = []platform{amazon}
	everywhere = []platform{amazon, walmart, shopee, wholesale1688, temu, tiktok}
)

// endpoints are the endpoints the fake implements, by lower-case name.
var endpoints = map[string]*endpoint{}

func init() {
	for _, e := range []*endpoint{
		{"ProductRequest", amazonOnly, productRequest},
		{"ProductTrend", amazonOnly, productTrend},
		{"CategoryTree", everywhere, categoryTreeRequest},
		{"CategoryRequest", amazonOnly, categoryRequest},
		{"CategoryProducts", amazonOnly, categoryProducts},
		{"KeywordRequest", amazonOnly, keywordRequest},
		{"KeywordSearchResults", amazonOnly, keywordSearchResults},
		{"ProductRealtimeRequest", amazonOnly, realtimeRequest},
		{"ProductRealtimeRequestStatusQuery", amazonOnly, realtimeStatus},
		{"ProductReviewsCollection", amazonOnly, reviewsCollection},
		{"ProductReviewsCollectionStatusQuery", amazonOnly, reviewsStatus},
		{"ProductReviewsQuery", amazonOnly, reviewsQuery},
	} {
		endpoints[strings.ToLower(e.name)] = e
	}
}

// closedEndpoints are endpoints of the real service that the fake does not implement; it
// answers them with code 401, as for an endpoint the account's plan does not include.
var closedEndpoints = map[string]bool{}

func init() {
	for _, name := range []string{
		"CategorySearchFromName", "CategoryTrend", "ProductSearch", "ProductSearchFromName",
		"AsinSalesVolume", "ProductVariationHistory", "SimilarProductRealtimeRequest",
		"SimilarProductRealtimeRequestStatusQuery", "SimilarProductRealtimeRequestCollection",
		"KeywordQuery", "KeywordSearchResultTrend", "CategoryRequestKeyword", "ASINRequestKeyword",
		"KeywordProductRanking", "ASINKeywordRanking", "KeywordExtends", "FavoriteKeyword",
		"ChangeFavoriteKeyword", "GetFavoriteKeyword", "KeywordBatchSubscription", "KeywordTasks",
		"KeywordBatchTaskUpdate", "KeywordBatchScheduleList", "KeywordBatchScheduleDetail",
		"BestSellerListSubscription", "BestSellerListTask", "BestSellerListDelete",
		"BestSellerListDataCollect", "ProductSellerSubscription", "ProductSellerTasks",
		"ProductSellerTaskUpdate", "ProductSellerTaskScheduleList", "ProductSellerTaskScheduleDetail",
		"ASINSubscription", "ASINSubscriptionQuery", "ASINSubscriptionCollection",
		"ProductAssistant", "CategoryAssistant", "AIResultQuery", "AIResult",
		"CoinQuery", "CoinStream", "RequestStreamMonth", "ShopRequest", "ProductTrendRequest",
	} {
		closedEndpoints[strings.ToLower(name)] = true
	}
}

// maxASINs is the most ASINs one ProductRequest takes.
const maxASINs = 10

// defaultTrendDays is the length of ProductRequest's trends when no dates are given.
const defaultTrendDays = 15

// withinTwoYears checks that a date is not older than two years before now.
func withinTwoYears(d, now time.Time) bool { return !d.Before(day(now).AddDate(-2, 0, 0)) }

// productRequest is ProductRequest {ASIN (one or up to 10 comma-separated), Trend,
// QueryTrendStartDt, QueryTrendEndDt}: the list of the products that exist, with their
// trends unless Trend is 2; code 97 when none exists.
func productRequest(s *Server, r *request) result {
	raw, err := r.p.requiredStr("ASIN")
	if err != nil {
		return paramFailure(err)
	}
	parts := strings.Split(raw, ",")
	if len(parts) > maxASINs {
		return refusal(codeTooManyASINs, msgTooManyASINs)
	}
	var asins []string
	for _, part := range parts {
		asin, err := checkASIN(part)
		if err != nil {
			return paramFailure(err)
		}
		if !slices.Contains(asins, asin) {
			asins = append(asins, asin)
		}
	}
	withTrend, err := r.p.integer("Trend", 1, 1, 2)
	if err != nil {
		return paramFailure(err)
	}
	today := day(r.now)
	from, to := today.AddDate(0, 0, 1-defaultTrendDays), today
	start, hasStart, err := r.p.date("QueryTrendStartDt", time.DateOnly, "yyyy-MM-dd")
	if err != nil {
		return paramFailure(err)
	}
	end, hasEnd, err := r.p.date("QueryTrendEndDt", time.DateOnly, "yyyy-MM-dd")
	if err != nil {
		return paramFailure(err)
	}
	if hasStart {
		from = start
		if hasEnd {
			to = earlier(end, today)
		}
		if from.After(to) {
			return paramFailure(badParam("QueryTrendStartDt is after QueryTrendEndDt"))
		}
		if !withinTwoYears(from, r.now) {
			return refusal(codeTooOld, msgTooOld)
		}
	}
	var out []productObject
	for _, asin := range asins {
		if strings.HasPrefix(asin, MissingASINPrefix) {
			continue
		}
		p := product(r.site, asin, s.created, r.now)
		if withTrend == 1 {
			p = withTrends(p, from, to)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return failure(codeNoProduct, msgNoProduct)
	}
	return success(out)
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// productTrend is ProductTrend {ASIN, dateRange "yyyyMMdd,yyyyMMdd", trendType 1-5}: one flat
// [yyyyMMdd, value, ...] trend (default: the price over the last 30 days). Code 11 when the
// range ends before the product went on sale.
func productTrend(s *Server, r *request) result {
	asin, err := r.p.asin()
	if err != nil {
		return paramFailure(err)
	}
	kind, err := r.p.integer("trendType", 1, 1, len(trendKinds))
	if err != nil {
		return paramFailure(err)
	}
	today := day(r.now)
	from, to := today.AddDate(0, 0, -29), today
	rng, ok, err := r.p.str("dateRange")
	if err != nil {
		return paramFailure(err)
	}
	if ok && rng != "" {
		if from, to, err = parseDateRange(rng); err != nil {
			return paramFailure(err)
		}
		if !withinTwoYears(from, r.now) {
			return refusal(codeTooOld, msgTooOld)
		}
	}
	if strings.HasPrefix(asin, MissingASINPrefix) {
		return failure(codeNoProduct, msgNoProduct)
	}
	p := product(r.site, asin, s.created, r.now)
	online, _ := time.Parse(time.DateOnly, p.OnlineDate)
	from, to = later(from, online), earlier(to, today)
	if from.After(to) {
		return failure(codeNoData, msgNoData)
	}
	return success(trend(p, trendKinds[kind-1], from, to))
}

// parseDateRange reads "yyyyMMdd,yyyyMMdd".
func parseDateRange(s string) (from, to time.Time, err error) {
	a, b, ok := strings.Cut(s, ",")
	if ok {
		from, err = time.Parse("20060102", strings.TrimSpace(a))
	}
	if ok && err == nil {
		to, err = time.Parse("20060102", strings.TrimSpace(b))
	}
	if !ok || err != nil {
		return from, to, badParam("dateRange %q is not two dates yyyyMMdd,yyyyMMdd", s)
	}
	if from.After(to) {
		return from, to, badParam("dateRange %q starts after it ends", s)
	}
	return from, to, nil
}

// categoryTreeRequest is CategoryTree {}: the site's whole category tree.
func categoryTreeRequest(_ *Server, r *request) result { return success(categoryTree(r.site)) }

// categoryObject is the answer of CategoryRequest.
type categoryObject struct {
	Products []productObject `json:"Products"`
}

// Look-back limits of CategoryRequest, in days.
const (
	minLookbackDays = 3
	maxLookbackDays = 40
)

// categoryRequest is CategoryRequest {NodeId, QueryStart, QueryDate, QueryDays}: the node's
// best-seller top 100, live or combined over a past span of 3 to 40 days.
func categoryRequest(s *Server, r *request) result {
	node, err := r.p.nodeID()
	if err != nil {
		return paramFailure(err)
	}
	start, hasStart, err := r.p.date("QueryStart", time.DateOnly, "yyyy-MM-dd")
	if err != nil {
		return paramFailure(err)
	}
	end, hasEnd, err := r.p.date("QueryDate", time.DateOnly, "yyyy-MM-dd")
	if err != nil {
		return paramFailure(err)
	}
	days, err := r.p.integer("QueryDays", 0, minLookbackDays, maxLookbackDays)
	if err != nil {
		return paramFailure(err)
	}
	list := "category:" + node
	if hasStart || hasEnd || days > 0 {
		if !hasEnd || !hasStart && days == 0 {
			return paramFailure(badParam("a look-back needs QueryDate with QueryStart or QueryDays"))
		}
		if !hasStart {
			start = end.AddDate(0, 0, 1-days)
		}
		span := daysBetween(start, end) + 1
		if span < minLookbackDays || span > maxLookbackDays {
			return paramFailure(badParam("the look-back must span 3 to 40 days, not %d", span))
		}
		if end.After(day(r.now).AddDate(0, 0, -2)) {
			return paramFailure(badParam("QueryDate must be at least 2 days before today"))
		}
		if !withinTwoYears(start, r.now) {
			return refusal(codeTooOld, msgTooOld)
		}
		if noLookback[r.site.code] {
			return refusal(codeUnsupported, "Historical look-back is not supported on this site")
		}
		list += ":" + start.Format(time.DateOnly) + ":" + end.Format(time.DateOnly)
	}
	if node == NoDataNodeID {
		return failure(codeNoData, msgNoData)
	}
	products := productList(r.site, list, categorySize(node), s.created, r.now)
	return success(categoryObject{Products: products[:min(100, len(products))]})
}

// categoryProducts is CategoryProducts {NodeId, Page, Range}: a page of the node's products
// by monthly sales, Range limiting how many there are; code 11 past the last page.
func categoryProducts(s *Server, r *request) result {
	node, err := r.p.nodeID()
	if err != nil {
		return paramFailure(err)
	}
	page, err := r.p.page()
	if err != nil {
		return paramFailure(err)
	}
	n := categorySize(node)
	rng, err := r.p.integer("Range", n, 1, 100000)
	if err != nil {
		return paramFailure(err)
	}
	if node == NoDataNodeID {
		return failure(codeNoData, msgNoData)
	}
	items, ok := paginate(productList(r.site, "category:"+node, n, s.created, r.now)[:min(n, rng)], page)
	if !ok {
		return failure(codeNoData, msgNoData)
	}
	return success(items)
}

// keywordRequest is KeywordRequest {Keyword}: the keyword's search volume, CPC and trends.
func keywordRequest(_ *Server, r *request) result {
	kw, err := r.p.keyword()
	if err != nil {
		return paramFailure(err)
	}
	if normalKeyword(kw) == NoDataKeyword {
		return failure(codeNoData, msgNoData)
	}
	return success(keyword(r.site, kw, r.now))
}

// keywordSearchResults is KeywordSearchResults {Keyword, Page}: a page of the products found
// for the keyword over the last 15 days; code 11 past the last page.
func keywordSearchResults(s *Server, r *request) result {
	kw, err := r.p.keyword()
	if err != nil {
		return paramFailure(err)
	}
	page, err := r.p.page()
	if err != nil {
		return paramFailure(err)
	}
	if normalKeyword(kw) == NoDataKeyword {
		return failure(codeNoData, msgNoData)
	}
	items, ok := paginate(searchResults(r.site, kw, s.created, r.now), page)
	if !ok {
		return failure(codeNoData, msgNoData)
	}
	return success(items)
}
