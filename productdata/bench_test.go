package productdata_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentapis/sdk/internal/benchtest"
	"github.com/agentapis/sdk/productdata"
)

// floorProduct is what a hand-written client would decode: the ProductObject fields the
// SDK's Product has.
type floorProduct struct {
	ASIN                      string     `json:"ASIN"`
	ParentAsin                string     `json:"ParentAsin"`
	Title                     string     `json:"Title"`
	Photo                     []string   `json:"Photo"`
	EBCPhoto                  []string   `json:"EBCPhoto"`
	StoreName                 string     `json:"StoreName"`
	Brand                     string     `json:"Brand"`
	ProductType               string     `json:"ProductType"`
	SalesPrice                int        `json:"SalesPrice"`
	Price                     *int       `json:"Price"`
	ListPrice                 *int       `json:"ListPrice"`
	Coupon                    *int       `json:"Coupon"`
	ListingSalesVolumeOfMonth int        `json:"ListingSalesVolumeOfMonth"`
	ListingSalesOfMonth       *int       `json:"ListingSalesOfMonth"`
	ListingSalesVolumeOfDaily *int       `json:"ListingSalesVolumeOfDaily"`
	ListingSalesOfDaily       *int       `json:"ListingSalesOfDaily"`
	BuyboxSeller              string     `json:"BuyboxSeller"`
	BuyboxSellerID            string     `json:"BuyboxSellerId"`
	BuyboxSellerAddress       string     `json:"BuyboxSellerAddress"`
	IsFBA                     *bool      `json:"IsFBA"`
	FbaFee                    *int       `json:"FbaFee"`
	FbaDetetail               []string   `json:"FbaDetetail"`
	ShipCost                  *int       `json:"ShipCost"`
	PlatformFee               *int       `json:"PlatformFee"`
	Profit                    *int       `json:"Profit"`
	ProfitRate                *float64   `json:"ProfitRate"`
	OnlineDate                string     `json:"OnlineDate"`
	OnlineDays                *int       `json:"OnlineDays"`
	Ratings                   *float64   `json:"Ratings"`
	RatingsCount              *int       `json:"RatingsCount"`
	Rank                      *int       `json:"Rank"`
	Category                  []string   `json:"Category"`
	BsrCategory               [][]string `json:"BsrCategory"`
	VariationASINCount        *int       `json:"VariationASINCount"`
	SellerCount               *int       `json:"SellerCount"`
	HasVideo                  *bool      `json:"HasVideo"`
	APlus                     *bool      `json:"APlus"`
	HasBrandStore             *bool      `json:"HasBrandStore"`
	Size                      []string   `json:"Size"`
	Weight                    *float64   `json:"Weight"`
	ExtraSavings              []struct {
		Asin, Text string
	} `json:"ExtraSavings"`
	BrandPromotion    string    `json:"BrandPromotion"`
	DealType          string    `json:"DealType"`
	PriceTrend        []any     `json:"PriceTrend"`
	RankTrend         []any     `json:"RankTrend"`
	RatingsCountTrend []any     `json:"RatingsCountTrend"`
	RatingsTrend      []any     `json:"RatingsTrend"`
	SalesVolumeTrend  []any     `json:"SalesVolumeTrend"`
	_                 [0]func() // not comparable
}

// floorEnvelope is the envelope a hand-written client would decode.
type floorEnvelope struct {
	Code            int            `json:"Code"`
	Message         *string        `json:"Message"`
	RequestLeft     int            `json:"RequestLeft"`
	RequestConsumed int            `json:"RequestConsumed"`
	Data            []floorProduct `json:"Data"`
}

// floorProductRequest is the hand-written ProductRequest: net/http and encoding/json, nothing
// else.
func floorProductRequest(hc *http.Client, base, key, asin string) error {
	body, err := json.Marshal(map[string]any{"domain": 1, "asin": asin})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/api/ProductRequest?domain=1", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "BasicAuth "+key)
	req.Header.Set("Content-Type", "application/json;charset=UTF-8")
	var env floorEnvelope
	if err := benchtest.Floor(hc, req, &env); err != nil {
		return err
	}
	if env.Code != 0 || len(env.Data) != 1 {
		return fmt.Errorf("code %d, %d products", env.Code, len(env.Data))
	}
	return nil
}

// benchServer answers every request with the recorded ProductRequest answer (a full product
// with its trends, as a list of one).
func benchServer(b *testing.B) *httptest.Server {
	raw, err := os.ReadFile(filepath.Join("testdata", "fixtures", "product.json"))
	if err != nil {
		b.Fatal(err)
	}
	var rec struct {
		Response struct {
			Body map[string]any `json:"body"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		b.Fatal(err)
	}
	rec.Response.Body["Data"] = []any{rec.Response.Body["Data"]}
	body, err := json.Marshal(rec.Response.Body)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkProduct compares Client.Product with the hand-written floor on the same server:
// one goroutine, then 64 sharing one client. The SDK client is unpaced here
// (WithRequestsPerMinute(0)): the benchmark measures its cost, not the plan's 200 a minute.
// "conns" is the number of TCP connections each side's client dialled during the run.
//
//	go test -run='^$' -bench=Product -benchmem -count=10 ./productdata
func BenchmarkProduct(b *testing.B) {
	const key, asin = testKey, "B0CVM8TXHP"
	srv := benchServer(b)
	benchtest.Run(b, benchtest.Calls{
		SDK: func(b *testing.B, hc *http.Client) func() error {
			c, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(key), productdata.WithRequestsPerMinute(0),
				productdata.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			return func() error { _, err := c.Product(b.Context(), productdata.AmazonUS, asin); return err }
		},
		Floor: func(_ *testing.B, hc *http.Client) func() error {
			return func() error { return floorProductRequest(hc, srv.URL, key, asin) }
		},
	})
}
