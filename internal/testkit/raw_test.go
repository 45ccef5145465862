package testkit

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDoReadsTheRawAnswer(t *testing.T) {
	t.Parallel()
	rec := Record(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch r.URL.Path {
		case "/nested":
			Reply(w, http.StatusBadRequest, `{"error":{"code":"invalid_uid","message":"uid must be positive"},"echo":"`+string(body)+`"}`)
		case "/flat":
			Reply(w, http.StatusConflict, `{"code":"taken","message":"exists","item":{"id":1},"items":[{"id":1},{"id":2}]}`)
		case "/away":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<p>" + r.Header.Get("X-Test") + "</p>"))
		}
	})
	r := Do(t, rec.Client(), http.MethodPost, rec.URL+"/nested", "hi", nil)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "invalid_uid", r.ErrorCode())
	assert.Equal(t, "uid must be positive", r.ErrorMessage())
	assert.Equal(t, "hi", r.JSON["echo"], "the body was sent")

	r = Do(t, rec.Client(), http.MethodGet, rec.URL+"/flat", "", nil)
	assert.Equal(t, "taken", r.ErrorCode())
	assert.Equal(t, "exists", r.ErrorMessage())
	assert.Equal(t, map[string]any{"id": 1.0}, r.Object(t, "item"))
	assert.Equal(t, []map[string]any{{"id": 1.0}, {"id": 2.0}}, r.List(t, "items"))

	r = Do(t, rec.Client(), http.MethodGet, rec.URL+"/away", "", nil)
	assert.Equal(t, http.StatusFound, r.Status, "a redirect is not followed")
	assert.Equal(t, "/elsewhere", r.Header.Get("Location"))

	r = Do(t, rec.Client(), http.MethodGet, rec.URL+"/page", "", map[string]string{"X-Test": "seen"})
	assert.Equal(t, "<p>seen</p>", string(r.Body))
	assert.Nil(t, r.JSON, "not JSON")
	assert.Empty(t, r.ErrorCode())
	require.Len(t, rec.Requests(), 4)
	assert.Empty(t, rec.Requests()[1].Body, "no body for an empty one")
}

func TestRawRefusesMembersOfAnotherShape(t *testing.T) {
	t.Parallel()
	r := Raw{Body: []byte(`{"item":[1],"items":[1]}`), JSON: map[string]any{"item": []any{1.0}, "items": []any{1.0}}}
	f := &fatals{TB: t}
	r.Object(f, "item")
	r.List(f, "items")
	r.List(f, "missing")
	assert.Equal(t, []string{
		`item is not an object in {"item":[1],"items":[1]}`,
		`items[0] is not an object in {"item":[1],"items":[1]}`,
		`missing is not an array in {"item":[1],"items":[1]}`,
	}, f.messages)
}
