package hosting

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentapis/sdk/internal/httpcore"
)

// checkRepoName refuses a repository name that is empty, is "." or "..", or holds a "/", a
// backslash, a NUL or another control character, or invalid UTF-8: the name is one segment of
// the API's paths and of the site's address. field names the parameter in the error.
func checkRepoName(field, name string) error {
	switch {
	case name == "":
		return invalid(field, "must not be empty")
	case name == "." || name == "..":
		return invalid(field, `must not be "." or ".."`)
	case strings.Contains(name, "/"):
		return invalid(field, `must not contain "/": a repository name is one segment`)
	}
	return checkChars(field, name)
}

// checkPath refuses a file path that is empty, starts with "/", has an empty, "." or ".."
// segment, or holds a backslash, a NUL or another control character, or invalid UTF-8.
// Nested paths such as "assets/img/logo.png" are allowed.
func checkPath(field, path string) error {
	switch {
	case path == "":
		return invalid(field, "must not be empty")
	case strings.HasPrefix(path, "/"):
		return invalid(field, `must be relative: it must not start with "/"`)
	}
	if err := checkChars(field, path); err != nil {
		return err
	}
	for seg := range strings.SplitSeq(path, "/") {
		switch seg {
		case "..":
			return invalid(field, `must not contain a ".." segment`)
		case ".":
			return invalid(field, `must not contain a "." segment`)
		case "":
			return invalid(field, `must not contain an empty segment ("//" or a trailing "/")`)
		}
	}
	return nil
}

// checkChars refuses a backslash, a NUL or another control character, and invalid UTF-8.
func checkChars(field, s string) error {
	switch {
	case !utf8.ValidString(s):
		return invalid(field, "must be valid UTF-8")
	case strings.Contains(s, `\`):
		return invalid(field, "must not contain a backslash")
	case strings.Contains(s, "\x00"):
		return invalid(field, "must not contain NUL")
	case strings.ContainsFunc(s, unicode.IsControl):
		return invalid(field, "must not contain control characters")
	}
	return nil
}

// checkLabel refuses a text (a message, a branch name, a commit id) that is empty while
// required, blank, invalid UTF-8 or holds a NUL or another control character other than a
// line break or a tab. An optional text may be "" (not sent).
func checkLabel(field, s string, required bool) error {
	switch {
	case s == "" && !required:
		return nil
	case s == "":
		return invalid(field, "must not be empty")
	case strings.TrimSpace(s) == "":
		return invalid(field, "must not be blank")
	case !utf8.ValidString(s):
		return invalid(field, "must be valid UTF-8")
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }):
		return invalid(field, "must not contain control characters")
	}
	return nil
}

// fileEndpoint returns the escaped endpoint path of a file of a repository, each segment of path
// escaped on its own.
func fileEndpoint(repo, path string) string {
	return httpcore.Path(append([]string{"repos", repo, "files"}, strings.Split(path, "/")...)...)
}
