package httpcore

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

func TestSetCredentialsWhileRequestsRun(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"key":"`+r.Header.Get("X-API-Key")+`"}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	var out struct{ Key string }
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, &out)
	require.NoError(t, err)
	assert.Empty(t, out.Key, "no key before one is set")

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if i == 0 {
					assert.NoError(t, c.SetCredentials(Credential{Header: "X-API-Key", Value: fmt.Sprintf("key-%02d-bought", j)}))
					continue
				}
				var got struct{ Key string }
				_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, &got)
				assert.NoError(t, err)
				assert.True(t, got.Key == "" || len(got.Key) == len("key-00-bought"), "a request sends one whole credential: %q", got.Key)
			}
		}()
	}
	wg.Wait()
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "key-19-bought", out.Key)

	var ve *sdk.ValidationError
	require.ErrorAs(t, c.SetCredentials(Credential{Header: "X-API-Key", Value: "k\r\n"}), &ve)
	assert.Equal(t, "credential", ve.Field)
}

func TestReplacedCredentialsStayScrubbedAndGuarded(t *testing.T) {
	t.Parallel()
	const first, second = "first-key-0123456789", "second-key-9876543210"
	foreignSaw := make(chan string, 2)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignSaw <- r.Header.Get("X-API-Key")
		w.WriteHeader(http.StatusNotFound)
	}))
	defer foreign.Close()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, foreign.URL+"/x", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"message":"keys seen: `+first+` and `+second+`"}`)
	})
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "X-API-Key", Value: first}}}, WithBaseURL[*testConfig](srv.URL))
	require.NoError(t, c.SetCredentials(Credential{Header: "X-API-Key", Value: second}))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/echo"}, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), first, "a replaced key is still scrubbed")
	assert.NotContains(t, err.Error(), second)
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/away"}, nil)
	require.Error(t, err)
	assert.Empty(t, <-foreignSaw, "the new key is dropped on a redirect to another host")
}
