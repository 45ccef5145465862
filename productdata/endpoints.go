package productdata

// Endpoint is the name of an operation of the service, sent as the last path segment of
// POST {base}/api/{Endpoint}. Names are PascalCase letters and digits; the constants below are
// the documented ones, and Call takes any other name of that form.
type Endpoint string

// Amazon category endpoints.
const (
	EndpointCategoryTree           Endpoint = "CategoryTree"
	EndpointCategoryRequest        Endpoint = "CategoryRequest"
	EndpointCategoryProducts       Endpoint = "CategoryProducts"
	EndpointCategorySearchFromName Endpoint = "CategorySearchFromName"
	EndpointCategoryTrend          Endpoint = "CategoryTrend"
)

// Amazon product endpoints.
const (
	EndpointProductRequest          Endpoint = "ProductRequest"
	EndpointProductSearch           Endpoint = "ProductSearch"
	EndpointProductSearchFromName   Endpoint = "ProductSearchFromName"
	EndpointAsinSalesVolume         Endpoint = "AsinSalesVolume"
	EndpointProductVariationHistory Endpoint = "ProductVariationHistory"
	EndpointProductTrend            Endpoint = "ProductTrend"
)

// Amazon asynchronous endpoints: a request that starts a task, its status query, and the
// query of its result.
const (
	EndpointProductRealtimeRequest                   Endpoint = "ProductRealtimeRequest"
	EndpointProductRealtimeRequestStatusQuery        Endpoint = "ProductRealtimeRequestStatusQuery"
	EndpointProductReviewsCollection                 Endpoint = "ProductReviewsCollection"
	EndpointProductReviewsCollectionStatusQuery      Endpoint = "ProductReviewsCollectionStatusQuery"
	EndpointProductReviewsQuery                      Endpoint = "ProductReviewsQuery"
	EndpointSimilarProductRealtimeRequest            Endpoint = "SimilarProductRealtimeRequest"
	EndpointSimilarProductRealtimeRequestStatusQuery Endpoint = "SimilarProductRealtimeRequestStatusQuery"
	EndpointSimilarProductRealtimeRequestCollection  Endpoint = "SimilarProductRealtimeRequestCollection"
)

// Amazon keyword endpoints.
const (
	EndpointKeywordQuery             Endpoint = "KeywordQuery"
	EndpointKeywordSearchResults     Endpoint = "KeywordSearchResults"
	EndpointKeywordRequest           Endpoint = "KeywordRequest"
	EndpointKeywordSearchResultTrend Endpoint = "KeywordSearchResultTrend"
	EndpointCategoryRequestKeyword   Endpoint = "CategoryRequestKeyword"
	EndpointASINRequestKeyword       Endpoint = "ASINRequestKeyword"
	EndpointKeywordProductRanking    Endpoint = "KeywordProductRanking"
	EndpointASINKeywordRanking       Endpoint = "ASINKeywordRanking"
	EndpointKeywordExtends           Endpoint = "KeywordExtends"
	EndpointFavoriteKeyword          Endpoint = "FavoriteKeyword"
	EndpointChangeFavoriteKeyword    Endpoint = "ChangeFavoriteKeyword"
	EndpointGetFavoriteKeyword       Endpoint = "GetFavoriteKeyword"
)

// Amazon monitoring endpoints.
const (
	EndpointKeywordBatchSubscription        Endpoint = "KeywordBatchSubscription"
	EndpointKeywordTasks                    Endpoint = "KeywordTasks"
	EndpointKeywordBatchTaskUpdate          Endpoint = "KeywordBatchTaskUpdate"
	EndpointKeywordBatchScheduleList        Endpoint = "KeywordBatchScheduleList"
	EndpointKeywordBatchScheduleDetail      Endpoint = "KeywordBatchScheduleDetail"
	EndpointBestSellerListSubscription      Endpoint = "BestSellerListSubscription"
	EndpointBestSellerListTask              Endpoint = "BestSellerListTask"
	EndpointBestSellerListDelete            Endpoint = "BestSellerListDelete"
	EndpointBestSellerListDataCollect       Endpoint = "BestSellerListDataCollect"
	EndpointProductSellerSubscription       Endpoint = "ProductSellerSubscription"
	EndpointProductSellerTasks              Endpoint = "ProductSellerTasks"
	EndpointProductSellerTaskUpdate         Endpoint = "ProductSellerTaskUpdate"
	EndpointProductSellerTaskScheduleList   Endpoint = "ProductSellerTaskScheduleList"
	EndpointProductSellerTaskScheduleDetail Endpoint = "ProductSellerTaskScheduleDetail"
	EndpointASINSubscription                Endpoint = "ASINSubscription"
	EndpointASINSubscriptionQuery           Endpoint = "ASINSubscriptionQuery"
	EndpointASINSubscriptionCollection      Endpoint = "ASINSubscriptionCollection"
)

// Amazon AI analysis endpoints.
const (
	EndpointProductAssistant  Endpoint = "ProductAssistant"
	EndpointCategoryAssistant Endpoint = "CategoryAssistant"
	EndpointAIResultQuery     Endpoint = "AIResultQuery"
	EndpointAIResult          Endpoint = "AIResult"
)

// Account endpoints: they belong to no site and are called with NoDomain.
const (
	EndpointCoinQuery          Endpoint = "CoinQuery"
	EndpointCoinStream         Endpoint = "CoinStream"
	EndpointRequestStreamMonth Endpoint = "RequestStreamMonth"
)

// Endpoints of the other platforms.
const (
	// EndpointShopRequest reads a Shopee shop.
	EndpointShopRequest Endpoint = "ShopRequest"
	// EndpointProductTrendRequest is the product trend of Walmart, Temu and TikTok (TikTok
	// needs Type 1 for weekly or 2 for monthly).
	EndpointProductTrendRequest Endpoint = "ProductTrendRequest"
)

// maxEndpointLen bounds an endpoint name; the longest documented one has 40 characters.
const maxEndpointLen = 64

// endpointKind says how the package treats a documented endpoint.
type endpointKind uint8

const (
	// readEndpoint reads data without changing anything: it is retried like a GET.
	readEndpoint endpointKind = iota + 1
	// writeEndpoint starts a task, or creates, changes or deletes a subscription or a keyword
	// entry: it is never repeated on a network error or an error status, since the first
	// attempt may have acted.
	writeEndpoint
	// accountEndpoint reads the account; it takes no domain.
	accountEndpoint
)

// endpointKinds classifies the documented endpoints. A name that is not here is treated as a
// writeEndpoint that may or may not take a domain.
var endpointKinds = map[Endpoint]endpointKind{
	EndpointCategoryTree: readEndpoint, EndpointCategoryRequest: readEndpoint, EndpointCategoryProducts: readEndpoint,
	EndpointCategorySearchFromName: readEndpoint, EndpointCategoryTrend: readEndpoint,
	EndpointProductRequest: readEndpoint, EndpointProductSearch: readEndpoint, EndpointProductSearchFromName: readEndpoint,
	EndpointAsinSalesVolume: readEndpoint, EndpointProductVariationHistory: readEndpoint, EndpointProductTrend: readEndpoint,
	EndpointProductRealtimeRequest: writeEndpoint, EndpointProductRealtimeRequestStatusQuery: readEndpoint,
	EndpointProductReviewsCollection: writeEndpoint, EndpointProductReviewsCollectionStatusQuery: readEndpoint,
	EndpointProductReviewsQuery: readEndpoint, EndpointSimilarProductRealtimeRequest: writeEndpoint,
	EndpointSimilarProductRealtimeRequestStatusQuery: readEndpoint, EndpointSimilarProductRealtimeRequestCollection: readEndpoint,
	EndpointKeywordQuery: readEndpoint, EndpointKeywordSearchResults: readEndpoint, EndpointKeywordRequest: readEndpoint,
	EndpointKeywordSearchResultTrend: readEndpoint, EndpointCategoryRequestKeyword: readEndpoint,
	EndpointASINRequestKeyword: readEndpoint, EndpointKeywordProductRanking: readEndpoint,
	EndpointASINKeywordRanking: readEndpoint, EndpointKeywordExtends: readEndpoint,
	EndpointFavoriteKeyword: writeEndpoint, EndpointChangeFavoriteKeyword: writeEndpoint, EndpointGetFavoriteKeyword: readEndpoint,
	EndpointKeywordBatchSubscription: writeEndpoint, EndpointKeywordTasks: readEndpoint,
	EndpointKeywordBatchTaskUpdate: writeEndpoint, EndpointKeywordBatchScheduleList: readEndpoint,
	EndpointKeywordBatchScheduleDetail: readEndpoint, EndpointBestSellerListSubscription: writeEndpoint,
	EndpointBestSellerListTask: readEndpoint, EndpointBestSellerListDelete: writeEndpoint,
	EndpointBestSellerListDataCollect: readEndpoint, EndpointProductSellerSubscription: writeEndpoint,
	EndpointProductSellerTasks: readEndpoint, EndpointProductSellerTaskUpdate: writeEndpoint,
	EndpointProductSellerTaskScheduleList: readEndpoint, EndpointProductSellerTaskScheduleDetail: readEndpoint,
	EndpointASINSubscription: writeEndpoint, EndpointASINSubscriptionQuery: readEndpoint,
	EndpointASINSubscriptionCollection: readEndpoint,
	EndpointProductAssistant:           writeEndpoint, EndpointCategoryAssistant: writeEndpoint,
	EndpointAIResultQuery: readEndpoint, EndpointAIResult: readEndpoint,
	EndpointCoinQuery: accountEndpoint, EndpointCoinStream: accountEndpoint, EndpointRequestStreamMonth: accountEndpoint,
	EndpointShopRequest: readEndpoint, EndpointProductTrendRequest: readEndpoint,
}

// SafeToRepeat reports whether e only reads data, so that the client may send it again after
// a network error or an error status (it may then be charged twice, within the retry bound).
// The endpoints that start a task or change a subscription, and any name the package does not
// know, are sent once; the per-minute limit code, which the service answers without acting,
// is retried for every endpoint.
func (e Endpoint) SafeToRepeat() bool {
	k := endpointKinds[e]
	return k == readEndpoint || k == accountEndpoint
}

// check refuses a name that is not PascalCase letters and digits (the gateway answers 404 to a
// name with "_"), and a domain the endpoint cannot take: account endpoints take NoDomain, the
// other documented ones a site code, and an unknown name either.
func (e Endpoint) check(d Domain) error {
	if e == "" || len(e) > maxEndpointLen || !isAlnum(string(e)) || '0' <= e[0] && e[0] <= '9' {
		return invalid("endpoint", "must be a name of ASCII letters and digits starting with a letter, such as ProductRequest")
	}
	switch kind, known := endpointKinds[e]; {
	case d == NoDomain && known && kind != accountEndpoint:
		return invalid("domain", string(e)+" needs a site code (such as AmazonUS)")
	case d != NoDomain && kind == accountEndpoint:
		return invalid("domain", string(e)+" is an account endpoint: call it with NoDomain")
	case d != NoDomain:
		return checkDomain(d)
	}
	return nil
}
