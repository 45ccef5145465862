package httpcore

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"

	"github.com/agentapis/sdk/internal/jsonmember"
)

// DecodeErrorBody extracts an error code and message from the common JSON error shapes:
// {"error":{"code","message"}}, {"code","message"}, {"error":"<code>","message"} and
// {"error":"<message>"}. A body that matches none gives empty strings.
func DecodeErrorBody(body []byte) (code, message string) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &env); err != nil {
		return "", ""
	}
	message = cmp.Or(env.Message, env.Detail)
	code, _ = jsonmember.ScalarText(env.Code)
	if len(env.Error) > 0 {
		var nested struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		if s, _ := jsonmember.ScalarText(env.Error); s != "" {
			if code == "" && isCodeLike(s) {
				code = s
			} else if message == "" {
				message = s
			}
		} else if json.Unmarshal(env.Error, &nested) == nil {
			nestedCode, _ := jsonmember.ScalarText(nested.Code)
			code, message = cmp.Or(nestedCode, code), cmp.Or(nested.Message, message)
		}
	}
	return code, message
}

// isCodeLike reports whether s looks like a machine-readable code such as "invalid_api_key"
// rather than a sentence.
func isCodeLike(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':')
	})
}
