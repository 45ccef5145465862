package hostingtest

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkRepoName validates a repository name: one non-empty path segment of valid UTF-8,
// neither "." nor "..", without "/", backslash or control characters. The name appears in
// API paths and in the site address, so anything else could not be addressed safely.
func checkRepoName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case name == "." || name == "..":
		return errors.New(`name must not be "." or ".."`)
	case strings.ContainsRune(name, '/'):
		return errors.New(`name must not contain "/"`)
	}
	return checkCharacters("name", name)
}

// checkFilePath validates a decoded file path: non-empty, relative (no leading "/"), made of
// non-empty segments none of which is "." or "..", without backslash or control characters.
func checkFilePath(path string) error {
	if path == "" {
		return errors.New("path is empty")
	}
	if strings.HasPrefix(path, "/") {
		return errors.New(`path must not start with "/"`)
	}
	if err := checkCharacters("path", path); err != nil {
		return err
	}
	for seg := range strings.SplitSeq(path, "/") {
		switch seg {
		case "":
			return errors.New("path has an empty segment")
		case ".", "..":
			return errors.New(`path must not have a "." or ".." segment`)
		}
	}
	return nil
}

// checkBranchName validates a branch name: non-empty, no whitespace, backslash or control
// characters, no ".." and no empty segment between slashes ("feature/x" is fine).
func checkBranchName(field, name string) error {
	if name == "" {
		return errors.New(field + " is empty")
	}
	if err := checkCharacters(field, name); err != nil {
		return err
	}
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return errors.New(field + " must not contain whitespace")
	}
	if strings.Contains(name, "..") {
		return errors.New(field + ` must not contain ".."`)
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" {
			return errors.New(field + " has an empty segment")
		}
	}
	return nil
}

// checkCharacters refuses invalid UTF-8, backslashes and control characters (NUL included).
func checkCharacters(field, s string) error {
	if !utf8.ValidString(s) {
		return errors.New(field + " is not valid UTF-8")
	}
	if strings.ContainsRune(s, '\\') {
		return errors.New(field + " must not contain a backslash")
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return errors.New(field + " must not contain control characters")
	}
	return nil
}
