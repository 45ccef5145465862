package hosting

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentapis/sdk/internal/httpcore"
)

// FuzzDecodeAnswer feeds arbitrary bodies to the service's Decode and ErrorBody with every
// answer type: they never panic, ok false is always a failure, a success always has ok true,
// and a decoded repository information or file always has what the API description names.
//
//	go test -run='^$' -fuzz=FuzzDecodeAnswer -fuzztime=30s ./hosting
func FuzzDecodeAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"ok":true,"repo":{"name":"a"},"files":[{"path":"x","size":1,"sha":"0123456789abcdef0123456789abcdef01234567"}],"branches":["main"],"head":null}`,
		`{"ok":true,"data":{"tree":{"a":"sha","b":3},"branches":{"main":"c"},"head_commit":{"sha":"c"}}}`,
		`{"ok":false,"error":{"code":1,"message":"m"}}`,
		`{"ok":true,"content_base64":"AAE="}`,
		`{"ok":true,"file":{"content":"QQ==","encoding":"base64"}}`,
		`{"ok":true,"deployment":{"id":1},"preview_url":"u"}`,
		`{"ok":true,"repos":[{"name":"a","owner":{"login":"b"}},"c"]}`,
		`{"ok":"true"}`, `[]`, `null`, `<html>`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeErrorBody(body)
		var env envelope
		ok := json.Unmarshal(body, &env) == nil && env.OK.Or(false)
		for _, out := range []answer{nil, &repoListAnswer{}, &repoAnswer{}, &repoInfoAnswer{}, &fileWriteAnswer{},
			&fileAnswer{}, &commitAnswer{}, &deployAnswer{}, &deploymentListAnswer{}, &branchAnswer{}} {
			err := decodeAnswer(body, out)
			var failure *httpcore.Failure
			if errors.As(err, &failure) && env.OK.Or(true) {
				t.Fatalf("%T: a failure without ok false: %s", out, body)
			}
			if err != nil {
				continue
			}
			if !ok {
				t.Fatalf("%T: a success without ok true: %s", out, body)
			}
			switch a := out.(type) {
			case *repoInfoAnswer:
				if a.info.Files == nil || a.info.Branches == nil {
					t.Fatalf("nil list after success: %s", body)
				}
			case *repoListAnswer:
				if a.list == nil {
					t.Fatalf("nil list after success: %s", body)
				}
			case *deployAnswer:
				if a.merged.PreviewURL == "" {
					t.Fatalf("no preview_url after success: %s", body)
				}
			case *fileAnswer:
				if a.part == nil {
					t.Fatalf("no content after success: %s", body)
				}
			}
		}
	})
}
