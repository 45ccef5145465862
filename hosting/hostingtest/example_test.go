package hostingtest_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"

	"github.com/agentapis/sdk/hosting/hostingtest"
)

func ExampleNewServer() {
	srv := hostingtest.NewServer()
	defer srv.Close()

	api := func(method, path, body string) map[string]any {
		req, err := http.NewRequest(method, srv.URL+"/api/v1"+path, strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+hostingtest.DefaultToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		var answer map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			log.Fatal(err)
		}
		fmt.Println(method, path, resp.StatusCode, answer["ok"])
		return answer
	}

	page := "<!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>"
	api("POST", "/repos", `{"name":"hello","description":"a first site"}`)
	api("PUT", "/repos/hello/files/index.html", `{"content_base64":"`+base64.StdEncoding.EncodeToString([]byte(page))+`"}`)
	api("POST", "/repos/hello/commit", `{"message":"first page"}`)
	deployed := api("POST", "/repos/hello/deploy", `{"message":"go live"}`)

	previewURL := deployed["preview_url"].(string)
	fmt.Println("published at", strings.TrimPrefix(previewURL, srv.URL))
	resp, err := http.Get(previewURL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(string(body))
	// Output:
	// POST /repos 201 true
	// PUT /repos/hello/files/index.html 200 true
	// POST /repos/hello/commit 201 true
	// POST /repos/hello/deploy 201 true
	// published at /site/hello/
	// 200 text/html; charset=utf-8
	// <!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>
}
