package reportstore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
)

// echoForms returns v as a server may echo it: raw, URL-escaped, base64 in both alphabets.
func echoForms(v string) []string {
	return []string{v, url.QueryEscape(v), url.PathEscape(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v))}
}

// texts returns every string and byte slice reachable from v, exported or not, with the
// text of every error on the way.
func texts(v reflect.Value, seen map[uintptr]bool, out *[]string) {
	if !v.IsValid() {
		return
	}
	if v.CanInterface() {
		if e, ok := v.Interface().(error); ok && !(v.Kind() == reflect.Pointer && v.IsNil()) {
			*out = append(*out, e.Error())
		}
	}
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer {
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		texts(v.Elem(), seen, out)
	case reflect.Struct:
		for i := range v.NumField() {
			texts(v.Field(i), seen, out)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Kind() == reflect.Slice {
				*out = append(*out, string(v.Bytes()))
			}
			return
		}
		for i := range v.Len() {
			texts(v.Index(i), seen, out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			texts(it.Key(), seen, out)
			texts(it.Value(), seen, out)
		}
	}
}

// everyText returns the renderings of err and every text in its fields, through the errors
// it wraps.
func everyText(err error) []string {
	out := []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)}
	texts(reflect.ValueOf(err), map[uintptr]bool{}, &out)
	return out
}

func TestThePaymentNeverReachesAnErrorOrTheLog(t *testing.T) {
	t.Parallel()
	// Each answer to the paid request echoes the payment header and its signature, in every
	// form, in its body, in a header and, for the redirect, in the path it points to.
	answers := map[string]func(w http.ResponseWriter, echo string, header, sig string){
		"400": func(w http.ResponseWriter, echo, _, _ string) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error": "bad payment", "message": "`+echo+`"}`)
		},
		"404": func(w http.ResponseWriter, echo, _, _ string) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, echo)
		},
		"402 with a new challenge": func(w http.ResponseWriter, echo, _, _ string) {
			enc, err := wire.EncodePaymentRequired(&wire.PaymentRequired{X402Version: 2, Error: echo,
				Accepts: []wire.PaymentRequirements{{Scheme: evm.SchemeExact, Network: evm.NetworkBase,
					Amount: usdc.Cents(13), Asset: evm.USDCBase, PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
					MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"}}}})
			if err != nil {
				panic(err)
			}
			w.Header().Set(wire.HeaderPaymentRequired, enc)
			w.WriteHeader(http.StatusPaymentRequired)
			_, _ = io.WriteString(w, echo)
		},
		"500": func(w http.ResponseWriter, echo, _, _ string) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, echo)
		},
		"redirect": func(w http.ResponseWriter, echo, header, sig string) {
			w.Header().Set("Location", "/report/"+url.PathEscape(header)+"/"+sig+"?sig="+url.QueryEscape(header))
			w.WriteHeader(http.StatusFound)
			_, _ = io.WriteString(w, echo)
		},
		"settled redirect": func(w http.ResponseWriter, echo, header, sig string) {
			// The receipt does not echo: x402's PaymentSettledError keeps it as the store sent it.
			receipt, err := wire.EncodeSettleResponse(&wire.SettleResponse{Success: true, Transaction: "0xabc",
				Network: evm.NetworkBase})
			if err != nil {
				panic(err)
			}
			w.Header().Set(wire.HeaderPaymentResponse, receipt)
			w.Header().Set("Location", "/report/"+url.PathEscape(header)+"/"+sig)
			w.WriteHeader(http.StatusFound)
			_, _ = io.WriteString(w, echo)
		},
		"200 cut short": func(w http.ResponseWriter, echo, _, sig string) {
			receipt, err := wire.EncodeSettleResponse(&wire.SettleResponse{Success: true, Transaction: sig,
				Network: evm.NetworkBase, Payer: sig, ErrorReason: echo, ErrorMessage: echo})
			if err != nil {
				panic(err)
			}
			w.Header().Set(wire.HeaderPaymentResponse, receipt)
			w.Header().Set("Content-Length", strconv.Itoa(10*len(echo)))
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, echo) // then the connection closes before the announced end
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := testkit.Start(t, reportstoretest.NewServer())
			payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
			var mu sync.Mutex
			var secrets []string
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				header := r.Header.Get(wire.HeaderPaymentSignature)
				if header == "" {
					// The unpaid request gets the store's own challenge.
					req, _ := http.NewRequestWithContext(r.Context(), r.Method, store.URL+r.URL.RequestURI(), nil)
					resp, err := store.Client().Do(req)
					if err != nil {
						return
					}
					defer resp.Body.Close()
					for k, vs := range resp.Header {
						w.Header()[k] = vs
					}
					w.WriteHeader(resp.StatusCode)
					_, _ = io.Copy(w, resp.Body)
					return
				}
				p, err := wire.DecodePaymentPayload(header)
				if err != nil {
					panic(err)
				}
				exact, err := evm.DecodeExactPayload(p)
				if err != nil {
					panic(err)
				}
				sig := hex.EncodeToString(exact.Signature)
				mu.Lock()
				secrets = append(secrets, header, sig)
				mu.Unlock()
				scan.Add(header, sig)
				forms := append(echoForms(header), echoForms("0x"+strings.ToUpper(sig))...)
				echo := "you sent " + strings.Join(forms, " and ")
				for i, f := range forms {
					w.Header().Set("X-Echo-"+strconv.Itoa(i), f)
				}
				answer(w, echo, header, sig)
			}))
			t.Cleanup(front.Close)
			var logs bytes.Buffer
			var logMu sync.Mutex
			logger := slog.New(slog.NewJSONHandler(lockedWriter{b: &logs, mu: &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer), reportstore.WithLogger(logger))
			require.NoError(t, err)

			var errs []error
			_, err = c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
			errs = append(errs, err)
			s, err := c.OpenReport(context.Background(), "macro-gdp", reportstore.FormatCSV)
			if err == nil {
				_, err = io.ReadAll(s)
				s.Close()
			}
			errs = append(errs, err)
			_, err = c.Fetch(context.Background(), &reportstore.FetchParams{Path: "/report/macro-gdp", Query: url.Values{"format": {"json"}}})
			errs = append(errs, err)

			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, secrets, "the store was paid")
			logMu.Lock()
			all := []string{logs.String()}
			logMu.Unlock()
			require.Contains(t, all[0], "/report/macro-gdp", "logging is on")
			for _, err := range errs {
				require.Error(t, err)
				all = append(all, everyText(err)...)
			}
			for _, text := range all {
				lower := strings.ToLower(text)
				for _, secret := range secrets {
					for _, form := range echoForms(secret) {
						require.NotContains(t, lower, strings.ToLower(form), "a form of the payment in %q", text)
					}
				}
			}
		})
	}
}
