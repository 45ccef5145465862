package productdatatest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentapis/sdk/productdata/productdatatest"
)

// benchmarkCall measures one endpoint's round trip through the fake, per call.
func benchmarkCall(b *testing.B, endpoint, body string) {
	srv := productdatatest.NewServer(productdatatest.WithPerMinuteLimit(0), productdatatest.WithRequests(1<<30))
	defer srv.Close()
	client := srv.Client()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/"+endpoint+"?domain=1", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "BasicAuth "+productdatatest.DefaultKey)
		req.Header.Set("Content-Type", "application/json;charset=UTF-8")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
}

func BenchmarkProductRequestTenASINs(b *testing.B) {
	benchmarkCall(b, "ProductRequest", `{"asin":"B0CVM8TXHP,B0D3DL6PXQ,B0AAAAAAA1,B0AAAAAAA2,B0AAAAAAA3,B0AAAAAAA4,B0AAAAAAA5,B0AAAAAAA6,B0AAAAAAA7,B0AAAAAAA8"}`)
}

func BenchmarkCategoryProductsPage(b *testing.B) {
	benchmarkCall(b, "CategoryProducts", `{"NodeId":"3743561","Page":2}`)
}

func BenchmarkCategoryTree(b *testing.B) {
	benchmarkCall(b, "CategoryTree", `{}`)
}

func BenchmarkStatusQuery(b *testing.B) {
	benchmarkCall(b, "ProductRealtimeRequestStatusQuery", `{"ASINs":["B0NONE0001"]}`)
}
