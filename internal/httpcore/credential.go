package httpcore

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentapis/sdk"
)

// reasonForbiddenChars is the refusal of a credential that breaks the character rule.
const reasonForbiddenChars = "must not contain white space or control characters"

// forbiddenInCredential is the SDK's one character rule for a credential's value: white space
// or a control character, which no service's credential holds and which would break or bend
// the header that carries it, is refused.
func forbiddenInCredential(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// forbiddenInHeader refuses a control character in a credential's fixed prefix, such as
// "Bearer ", whose space is part of the header's syntax.
func forbiddenInHeader(r rune) bool { return unicode.IsControl(r) }

// CredentialRule is what a service's API description allows for one credential. Every
// credential option, SetX method and environment variable of a package checks its value with
// the same rule:
//
//	var tokenRule = httpcore.CredentialRule{Service: serviceName, Refused: []httpcore.RefusedPrefix{
//		{Prefix: "Bearer ", Reason: `must be the token alone, without the "Bearer" scheme word`},
//	}}
//
//	if err := tokenRule.Check("token", token); err != nil {
//		return err
//	}
type CredentialRule struct {
	// Service names the service in the error.
	Service string
	// Pattern is the credential's exact form, when the description gives one.
	Pattern *regexp.Regexp
	// Form is Pattern in words, for the error: "sk- followed by 32 hexadecimal characters".
	Form string
	// MinLen is the fewest characters the description allows; 0 for no bound.
	MinLen int
	// Refused are prefixes ruled out, compared without regard to letter case, each with why.
	Refused []RefusedPrefix
}

// RefusedPrefix is a start a credential must not have, such as a scheme word the client adds
// itself, or another credential's mark.
type RefusedPrefix struct {
	Prefix string
	// Reason is the refusal, such as "an sk- API key is not an account token; use WithAPIKey
	// for it".
	Reason string
}

// Check refuses, as an *sdk.ValidationError naming field (the option or the environment
// variable that gave the value), an empty value, one with a refused prefix, one holding white
// space or control characters (unicode.IsSpace or unicode.IsControl: the SDK's one character
// rule), one shorter than MinLen, and one not of Pattern. The error never quotes the value.
func (r CredentialRule) Check(field, value string) error {
	reason := r.refusal(value)
	switch {
	case value == "":
		reason = "must not be empty"
	case reason != "": // a refused prefix
	case strings.ContainsFunc(value, forbiddenInCredential):
		reason = reasonForbiddenChars
	case utf8.RuneCountInString(value) < r.MinLen:
		reason = fmt.Sprintf("must be at least %d characters long", r.MinLen)
	case r.Pattern != nil && !r.Pattern.MatchString(value):
		reason = "must be " + r.Form
	default:
		return nil
	}
	return &sdk.ValidationError{Service: r.Service, Field: field, Reason: reason}
}

// refusal returns the reason of the first refused prefix value starts with, or "".
func (r CredentialRule) refusal(value string) string {
	for _, p := range r.Refused {
		if len(value) >= len(p.Prefix) && strings.EqualFold(value[:len(p.Prefix)], p.Prefix) {
			return p.Reason
		}
	}
	return ""
}
