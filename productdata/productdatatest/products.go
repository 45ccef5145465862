package productdatatest

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"
)

// Fixed ASINs and rules of the generated data set.
const (
	// MissingASINPrefix starts every ASIN that does not exist: every call about it answers
	// code 97, and the real-time status query reports status 5.
	MissingASINPrefix = "B0NONE"
	// FailingASINPrefix starts every ASIN whose asynchronous tasks fail: a real-time refresh
	// ends with status 3 and code 98, a review collection with status 3 and code 98.
	FailingASINPrefix = "B0FAIL"
	// UnestimatedSuffix ends every ASIN whose sales the service cannot estimate: its
	// ListingSalesVolumeOfMonth, ListingSalesOfMonth, ListingSalesVolumeOfDaily and
	// ListingSalesOfDaily are -1.
	UnestimatedSuffix = "Z"
)

// hash is the 64-bit FNV-1a hash of the parts, joined by a separator; every generated value
// derives from it so that the data depend on the parameters only.
func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// pick returns one of the choices, chosen by h.
func pick[T any](h uint64, choices []T) T { return choices[h%uint64(len(choices))] }

// alnum are the characters of generated identifiers.
const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// ident returns n characters of alnum derived from the parts.
func ident(n int, parts ...string) string {
	h := hash(parts...)
	var b strings.Builder
	for i := range n {
		if i > 0 && i%12 == 0 {
			h = hash(append(parts, fmt.Sprint(i))...)
		}
		b.WriteByte(alnum[h%36])
		h /= 36
	}
	return b.String()
}

// generatedASIN returns the ASIN of the i-th product of a generated list.
func generatedASIN(list string, i int) string { return "B0" + ident(8, "asin", list, fmt.Sprint(i)) }

// The generated data set draws from these.
var (
	brands     = []string{"Anker", "Lumora", "Kestrel", "Vantoo", "Orbix", "Haloway", "Brightnest", "Tidecraft", "Zenvolt", "Copperleaf"}
	adjectives = []string{"Portable", "Compact", "Wireless", "Heavy-Duty", "Foldable", "Rechargeable", "Stainless", "Ergonomic", "Waterproof", "Smart"}
	sellers    = []string{"Amazon.com", "BrightDeals US", "Kestrel Direct", "Northwind Trading", "Shenzhen Leading Tech", "Orbix Official"}
	dealTypes  = []string{"Limited time deal", "Lightning Deal", "Prime Big Deal"}
)

// topCategory is a top-level category with its products' nouns.
type topCategory struct {
	name, cnName, nodeID, productType string
	nouns                             []string
}

// topCategories are the top-level categories of every generated tree and product.
var topCategories = []topCategory{
	{"Electronics", "电子产品", "172282", "ELECTRONICS", []string{"Power Bank", "Bluetooth Speaker", "USB-C Hub", "Earbuds"}},
	{"Home & Kitchen", "家居厨房", "1055398", "KITCHEN", []string{"Knife Set", "Coffee Grinder", "Food Storage Box", "Air Fryer Liner"}},
	{"Sports & Outdoors", "运动户外", "3375251", "SPORTING_GOODS", []string{"Yoga Mat", "Camping Lantern", "Water Bottle", "Resistance Band"}},
	{"Tools & Home Improvement", "工具家装", "228013", "TOOLS", []string{"Drill Bit Set", "LED Work Light", "Tape Measure", "Stud Finder"}},
	{"Toys & Games", "玩具游戏", "165793011", "TOY", []string{"Building Blocks", "Puzzle", "RC Car", "Card Game"}},
	{"Beauty & Personal Care", "美妆个护", "3760911", "BEAUTY", []string{"Hair Dryer", "Makeup Brush Set", "Nail Kit", "Face Roller"}},
	{"Pet Supplies", "宠物用品", "2619533011", "PET_SUPPLIES", []string{"Dog Leash", "Cat Scratcher", "Pet Bed", "Slow Feeder"}},
	{"Office Products", "办公用品", "1064954", "OFFICE_PRODUCTS", []string{"Desk Organizer", "Label Maker", "Gel Pens", "Monitor Stand"}},
}

// productObject is one product as the service describes it (ProductObject), with the
// service's member names. Amounts are in the site's minor currency unit; -1 in a sales member means
// the service cannot estimate it.
type productObject struct {
	ASIN                      string     `json:"ASIN"`
	ParentAsin                *string    `json:"ParentAsin"`
	Title                     string     `json:"Title"`
	Photo                     []string   `json:"Photo"`
	EBCPhoto                  []string   `json:"EBCPhoto"`
	StoreName                 string     `json:"StoreName"`
	Brand                     string     `json:"Brand"`
	ProductType               string     `json:"ProductType"`
	Price                     int        `json:"Price"`
	ListPrice                 int        `json:"ListPrice"`
	Coupon                    int        `json:"Coupon"`
	SalesPrice                int        `json:"SalesPrice"`
	ListingSalesVolumeOfDaily int        `json:"ListingSalesVolumeOfDaily"`
	ListingSalesOfDaily       int        `json:"ListingSalesOfDaily"`
	ListingSalesVolumeOfMonth int        `json:"ListingSalesVolumeOfMonth"`
	ListingSalesOfMonth       int        `json:"ListingSalesOfMonth"`
	BuyboxSeller              string     `json:"BuyboxSeller"`
	BuyboxSellerID            string     `json:"BuyboxSellerId"`
	BuyboxSellerAddress       *string    `json:"BuyboxSellerAddress"`
	IsFBA                     bool       `json:"IsFBA"`
	FbaFee                    int        `json:"FbaFee"`
	FbaDetetail               []string   `json:"FbaDetetail"`
	ShipCost                  int        `json:"ShipCost"`
	PlatformFee               int        `json:"PlatformFee"`
	Profit                    int        `json:"Profit"`
	ProfitRate                float64    `json:"ProfitRate"`
	OnlineDate                string     `json:"OnlineDate"`
	OnlineDays                int        `json:"OnlineDays"`
	Ratings                   float64    `json:"Ratings"`
	RatingsCount              int        `json:"RatingsCount"`
	Rank                      int        `json:"Rank"`
	Category                  []string   `json:"Category"`
	BsrCategory               [][]string `json:"BsrCategory"`
	VariationASINCount        int        `json:"VariationASINCount"`
	SellerCount               int        `json:"SellerCount"`
	HasVideo                  bool       `json:"HasVideo"`
	APlus                     bool       `json:"APlus"`
	HasBrandStore             bool       `json:"HasBrandStore"`
	Size                      []string   `json:"Size"`
	Weight                    int        `json:"Weight"`
	ExtraSavings              []any      `json:"ExtraSavings"`
	BrandPromotion            *string    `json:"BrandPromotion"`
	DealType                  *string    `json:"DealType"`

	// The trends of ProductRequest with Trend 1, flat [yyyyMMdd, value, ...].
	PriceTrend        []any `json:"PriceTrend,omitempty"`
	RankTrend         []any `json:"RankTrend,omitempty"`
	RatingsCountTrend []any `json:"RatingsCountTrend,omitempty"`
	RatingsTrend      []any `json:"RatingsTrend,omitempty"`
	SalesVolumeTrend  []any `json:"SalesVolumeTrend,omitempty"`
}

// product generates the product of an ASIN on an Amazon site; created is the fake's start,
// from which listing dates count back, and now dates OnlineDays.
func product(st site, asin string, created, now time.Time) productObject {
	h := hash("product", asin)
	bit := func(n uint) bool { return h>>n&1 == 1 }
	cat := pick(h>>3, topCategories)
	noun := pick(h>>7, cat.nouns)
	brand := pick(h>>11, brands)
	local := func(usCents int) int { return int(math.Round(float64(usCents) * float64(st.minorPerUSD) / 100)) }

	price := local(999 + int(h>>15%9000))
	listPrice := price
	if h>>29%3 == 0 {
		listPrice = price + price/5
	}
	coupon, salesPrice := 0, price
	switch h >> 31 % 5 {
	case 1:
		coupon, salesPrice = -10, price-price/10
	case 2:
		coupon = local(100)
		salesPrice = price - coupon
	}
	volume := 30 + int(h>>34%4970)
	if strings.HasSuffix(asin, UnestimatedSuffix) {
		volume = -1
	}
	sales, daily, dailySales := -1, -1, -1
	if volume >= 0 {
		sales, daily = volume*salesPrice, volume/30
		dailySales = daily * salesPrice
	}
	isFBA := !bit(40)
	fbaFee, shipCost := local(300+int(h>>41%600)), 0
	if !isFBA {
		fbaFee, shipCost = 0, local(499)
	}
	platformFee := salesPrice * 15 / 100
	profit := salesPrice - fbaFee - platformFee
	profitRate := math.Round(float64(profit)*10000/float64(salesPrice)) / 100

	online := created.AddDate(0, 0, -(30 + int(h>>44%1500)))
	variations := 0
	var parent *string
	if h>>50%4 != 0 {
		variations = 2 + int(h>>52%10)
		p := "B0" + ident(8, "parent", asin)
		parent = &p
	}
	seller := pick(h>>55, sellers)
	var sellerAddress *string
	if seller != "Amazon.com" {
		country := pick(h>>58, []string{"CN", "US", "GB", "CN"})
		sellerAddress = &country
	}
	var promotion, deal *string
	if bit(60) {
		p := "Save 5% on 2 select item(s)"
		promotion = &p
	}
	if bit(61) {
		d := pick(h>>62, dealTypes)
		deal = &d
	}
	subNode := fmt.Sprint(hash("sub", asin)%900000000 + 100000000)
	photo := "https://images.productdata.invalid/I/" + ident(11, "photo", asin)
	return productObject{
		ASIN:                      asin,
		ParentAsin:                parent,
		Title:                     fmt.Sprintf("%s %s %s, %s Edition", brand, pick(h>>19, adjectives), noun, pick(h>>23, []string{"2024", "2025", "Pro", "Lite", "Max"})),
		Photo:                     []string{photo + ".jpg", photo + "-2.jpg"},
		EBCPhoto:                  []string{},
		StoreName:                 brand + " Store",
		Brand:                     brand,
		ProductType:               cat.productType,
		Price:                     price,
		ListPrice:                 listPrice,
		Coupon:                    coupon,
		SalesPrice:                salesPrice,
		ListingSalesVolumeOfDaily: daily,
		ListingSalesOfDaily:       dailySales,
		ListingSalesVolumeOfMonth: volume,
		ListingSalesOfMonth:       sales,
		BuyboxSeller:              seller,
		BuyboxSellerID:            "A" + ident(13, "seller", seller),
		BuyboxSellerAddress:       sellerAddress,
		IsFBA:                     isFBA,
		FbaFee:                    fbaFee,
		FbaDetetail:               []string{fmt.Sprint(fbaFee), "1-9:" + fmt.Sprint(local(5)), "10-12:" + fmt.Sprint(local(15))},
		ShipCost:                  shipCost,
		PlatformFee:               platformFee,
		Profit:                    profit,
		ProfitRate:                profitRate,
		OnlineDate:                online.Format(time.DateOnly),
		OnlineDays:                daysBetween(online, now),
		Ratings:                   float64(30+h>>24%21) / 10,
		RatingsCount:              int(h >> 26 % 20000),
		Rank:                      1 + int(h>>33%50000),
		Category:                  []string{cat.name, cat.nodeID},
		BsrCategory:               [][]string{{noun + "s", subNode, fmt.Sprint(1 + h>>37%300)}},
		VariationASINCount:        variations,
		SellerCount:               1 + int(h>>46%10),
		HasVideo:                  bit(47),
		APlus:                     bit(48),
		HasBrandStore:             bit(49),
		Size:                      []string{cm(h >> 20), cm(h >> 22), cm(h >> 27)},
		Weight:                    50 + int(h>>30%5000),
		ExtraSavings:              []any{},
		BrandPromotion:            promotion,
		DealType:                  deal,
	}
}

// cm formats a package dimension in centimetres.
func cm(h uint64) string { return fmt.Sprintf("%.2f", 2+float64(h%4000)/100) }

// daysBetween returns the whole days from a to b (negative when b is earlier).
func daysBetween(a, b time.Time) int {
	return int(math.Floor(b.Sub(a).Hours() / 24))
}

// dayNumber writes a date as the integer yyyyMMdd of the trend arrays.
func dayNumber(t time.Time) int { return t.Year()*10000 + int(t.Month())*100 + t.Day() }

// trendKinds are the trend types of ProductTrend (trendType 1 to 5) and the ProductRequest
// members that carry them.
var trendKinds = []string{"PriceTrend", "RankTrend", "SalesVolumeTrend", "RatingsCountTrend", "RatingsTrend"}

// trend returns a product's daily trend of one kind from day from to day to (inclusive) as a
// flat [yyyyMMdd, value, ...] array, around the product's current value.
func trend(p productObject, kind string, from, to time.Time) []any {
	var out []any
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		h := hash("trend", p.ASIN, kind, d.Format(time.DateOnly))
		wobble := 0.9 + float64(h%21)/100 // 0.90 to 1.10
		var v any
		switch kind {
		case "PriceTrend":
			v = int(math.Round(float64(p.Price) * wobble))
		case "RankTrend":
			v = max(1, int(math.Round(float64(p.Rank)*wobble)))
		case "SalesVolumeTrend":
			v = max(-1, int(math.Round(float64(p.ListingSalesVolumeOfDaily)*wobble)))
		case "RatingsCountTrend":
			v = max(0, p.RatingsCount-daysBetween(d, to)*int(h%3))
		default:
			v = math.Round(min(5, p.Ratings*(0.98+float64(h%5)/100))*10) / 10
		}
		out = append(out, dayNumber(d), v)
	}
	return out
}

// withTrends adds the five trends from day from to day to.
func withTrends(p productObject, from, to time.Time) productObject {
	p.PriceTrend = trend(p, "PriceTrend", from, to)
	p.RankTrend = trend(p, "RankTrend", from, to)
	p.SalesVolumeTrend = trend(p, "SalesVolumeTrend", from, to)
	p.RatingsCountTrend = trend(p, "RatingsCountTrend", from, to)
	p.RatingsTrend = trend(p, "RatingsTrend", from, to)
	return p
}

// day truncates t to its UTC calendar day.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
