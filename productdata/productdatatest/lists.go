package productdatatest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Fixed parameters of the generated data set that have no data.
const (
	// NoDataNodeID is a category node without products: CategoryRequest and
	// CategoryProducts answer code 11 for it.
	NoDataNodeID = "4040404"
	// NoDataKeyword is a keyword without data: KeywordRequest and KeywordSearchResults answer
	// code 11 for it (in any letter case).
	NoDataKeyword = "no such keyword"
)

// pageSize is the number of items on one page of every paged endpoint.
const pageSize = 100

// paginate returns page (1-based) of items, or false when the page is past the end.
func paginate[T any](items []T, page int) ([]T, bool) {
	start := (page - 1) * pageSize
	if start >= len(items) {
		return nil, false
	}
	return items[start:min(start+pageSize, len(items))], true
}

// productList returns the n products of a generated list, best sellers first (by monthly
// volume, products whose sales cannot be estimated last, ties by ASIN).
func productList(st site, list string, n int, created, now time.Time) []productObject {
	out := make([]productObject, n)
	for i := range n {
		out[i] = product(st, generatedASIN(list, i), created, now)
	}
	slices.SortFunc(out, func(a, b productObject) int {
		return cmp.Or(cmp.Compare(b.ListingSalesVolumeOfMonth, a.ListingSalesVolumeOfMonth), strings.Compare(a.ASIN, b.ASIN))
	})
	return out
}

// categorySize is the number of products of a category node: 120 to 349.
func categorySize(nodeID string) int { return 120 + int(hash("category", nodeID)%230) }

// categoryNode is one node of CategoryTree.
type categoryNode struct {
	ID       int    `json:"Id"`
	ParentID int    `json:"ParentId"`
	NodeID   string `json:"NodeId"`
	Name     string `json:"Name"`
	CNName   string `json:"CNName"`
	URL      string `json:"URL"`
}

// Tree shape: every top-level category has treeFanout children, each with treeFanout
// children of its own.
const treeFanout = 12

// categoryTree returns a site's whole category tree (1,256 nodes, about 200 kB of JSON).
func categoryTree(st site) []categoryNode {
	var nodes []categoryNode
	add := func(parent int, nodeID, name, cnName string) int {
		id := len(nodes) + 1
		nodes = append(nodes, categoryNode{ID: id, ParentID: parent, NodeID: nodeID, Name: name, CNName: cnName, URL: categoryURL(st, nodeID)})
		return id
	}
	for _, top := range topCategories {
		topID := add(0, top.nodeID, top.name, top.cnName)
		for i := range treeFanout {
			noun := top.nouns[i%len(top.nouns)]
			name := fmt.Sprintf("%s %ss", adjectives[i%len(adjectives)], noun)
			subNode := fmt.Sprint(hash("node", top.nodeID, name)%9000000000 + 1000000000)
			subID := add(topID, subNode, name, fmt.Sprintf("%s %d", top.cnName, i+1))
			for j := range treeFanout {
				leaf := fmt.Sprintf("%s, Type %d", name, j+1)
				leafNode := fmt.Sprint(hash("node", subNode, leaf)%9000000000 + 1000000000)
				add(subID, leafNode, leaf, fmt.Sprintf("%s %d-%d", top.cnName, i+1, j+1))
			}
		}
	}
	return nodes
}

// categoryURL is the marketplace page of a category node.
func categoryURL(st site, nodeID string) string {
	switch st.platform {
	case amazon:
		return "https://" + st.host + "/b?node=" + nodeID
	case walmart:
		return "https://" + st.host + "/browse/" + nodeID
	case shopee:
		return "https://" + st.host + "/category-cat." + nodeID
	case tiktok:
		return "https://" + st.host + "/shop/c/" + nodeID
	default:
		return "https://" + st.host + "/category/" + nodeID + ".html"
	}
}

// keywordObject is the answer of KeywordRequest.
type keywordObject struct {
	Keyword           string `json:"Keyword"`
	SearchVolume      int    `json:"SearchVolume"`
	CPC               int    `json:"CPC"`
	SearchVolumeTrend []int  `json:"SearchVolumeTrend"`
	CPCTrend          []int  `json:"CPCTrend"`
	ProductCount      int    `json:"ProductCount"`
}

// normalKeyword is the form of a keyword its data derive from.
func normalKeyword(k string) string { return strings.ToLower(strings.Join(strings.Fields(k), " ")) }

// keyword generates a keyword's data on a site: monthly trends over the 24 months before
// now's month, as flat [yyyyMM, value, ...] arrays.
func keyword(st site, kw string, now time.Time) keywordObject {
	norm := normalKeyword(kw)
	h := hash("keyword", norm)
	local := func(usCents int) int { return int(math.Round(float64(usCents) * float64(st.minorPerUSD) / 100)) }
	volume := 500 + int(h%500000)
	cpc := local(20 + int(h>>20%380))
	k := keywordObject{Keyword: kw, SearchVolume: volume, CPC: cpc, ProductCount: 1000 + int(h>>30%90000)}
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -24, 0)
	for m := range 24 {
		month := first.AddDate(0, m, 0)
		mh := hash("keyword-month", norm, month.Format("2006-01"))
		stamp := month.Year()*100 + int(month.Month())
		k.SearchVolumeTrend = append(k.SearchVolumeTrend, stamp, int(float64(volume)*(0.7+float64(mh%61)/100)))
		k.CPCTrend = append(k.CPCTrend, stamp, int(float64(cpc)*(0.8+float64(mh>>8%41)/100)))
	}
	return k
}

// searchResult is one product of KeywordSearchResults: the product's members plus its
// organic and sponsored positions (0 when not sponsored).
type searchResult struct {
	productObject
	OrganicRank   int `json:"OrganicRank"`
	SponsoredRank int `json:"SponsoredRank"`
}

// searchResults returns a keyword's search results of the last 15 days: 40 to 259 products.
func searchResults(st site, kw string, created, now time.Time) []searchResult {
	norm := normalKeyword(kw)
	n := 40 + int(hash("search", norm)%220)
	out := make([]searchResult, n)
	for i := range n {
		p := product(st, generatedASIN("search:"+norm, i), created, now)
		sponsored := 0
		if hash("sponsored", norm, p.ASIN)%4 == 0 {
			sponsored = 1 + int(hash("sponsored-rank", norm, p.ASIN)%20)
		}
		out[i] = searchResult{productObject: p, OrganicRank: i + 1, SponsoredRank: sponsored}
	}
	return out
}
