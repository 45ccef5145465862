package hosting

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Encoding is how a file's content travels in a request or an answer: as text in the content
// member, or as Base64 in content_base64.
type Encoding string

// The two encodings of the API description.
const (
	// EncodingText sends the content as a JSON string in content: text that is valid UTF-8.
	EncodingText Encoding = "content"
	// EncodingBase64 sends the content as standard Base64 in content_base64: binary files,
	// and HTML, XHTML, XML and SVG whatever their bytes.
	EncodingBase64 Encoding = "content_base64"
)

// markupExtensions are the extensions of HTML, XHTML, XML and SVG files, sent as Base64
// whatever their bytes: a CDN or firewall in front of the service blocks a request whose
// body carries raw markup.
var markupExtensions = map[string]bool{
	".html": true, ".htm": true, ".shtml": true, ".xhtml": true, ".xht": true, ".xml": true,
	".svg": true, ".svgz": true, ".xsl": true, ".xslt": true, ".rss": true, ".atom": true,
	".mathml": true, ".vxml": true, ".plist": true, ".kml": true, ".gpx": true,
}

// binaryExtensions are the extensions of common binary formats of a static site (images,
// fonts, media, archives, documents, WebAssembly), sent as Base64 even when their bytes happen
// to be valid UTF-8.
var binaryExtensions = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true,
	".ico": true, ".bmp": true, ".tif": true, ".tiff": true, ".heic": true, ".apng": true,
	".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true,
	".mp3": true, ".mp4": true, ".m4a": true, ".ogg": true, ".oga": true, ".ogv": true,
	".wav": true, ".webm": true, ".mov": true, ".flac": true, ".aac": true,
	".zip": true, ".gz": true, ".tgz": true, ".br": true, ".zst": true, ".bz2": true,
	".xz": true, ".7z": true, ".rar": true, ".tar": true,
	".pdf": true, ".wasm": true, ".bin": true, ".exe": true, ".dll": true, ".so": true,
	".dylib": true, ".class": true, ".jar": true, ".psd": true,
}

// markupMarkers are the openings of markup that firewalls look for, matched
// case-insensitively anywhere in a text: a text holding one is sent as Base64.
var markupMarkers = []string{"<html", "<!doctype", "<script", "<svg", "<?xml", "<iframe", "<body", "<head", "<style"}

// ContentEncoding returns how PutFile sends data stored at path, decided in this order:
//
//  1. a path whose extension (in any letter case) is that of HTML, XHTML, XML or SVG (.html,
//     .htm, .xhtml, .xml, .svg, ...) or of a common binary format (.png, .jpg, .woff2,
//     .pdf, .wasm, ...) gets EncodingBase64;
//  2. data that is not valid UTF-8, or holds a NUL byte (git's test for a binary file), gets
//     EncodingBase64;
//  3. text that sniffs as HTML or XML (net/http's DetectContentType), or holds one of the
//     markup openings firewalls look for anywhere (<html, <!doctype, <script, <svg, <?xml,
//     <iframe, <body, <head, <style, in any letter case) gets EncodingBase64;
//  4. any other text gets EncodingText.
//
// Either way the service stores the same bytes, and Client.File returns them.
func ContentEncoding(filePath string, data []byte) Encoding {
	ext := strings.ToLower(path.Ext(filePath))
	switch {
	case markupExtensions[ext], binaryExtensions[ext]:
		return EncodingBase64
	case !utf8.Valid(data), bytes.IndexByte(data, 0) >= 0:
		return EncodingBase64
	case sniffsAsMarkup(data), holdsMarkup(data):
		return EncodingBase64
	}
	return EncodingText
}

// sniffsAsMarkup reports whether net/http's content sniffing reads data as HTML or XML.
func sniffsAsMarkup(data []byte) bool {
	ct := http.DetectContentType(data)
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "text/xml")
}

// holdsMarkup reports whether data holds one of markupMarkers, in any ASCII letter case.
func holdsMarkup(data []byte) bool {
	lower := bytes.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, data)
	return slices.ContainsFunc(markupMarkers, func(m string) bool { return bytes.Contains(lower, []byte(m)) })
}

// fileBody returns the JSON body that sends data with enc: the one member enc names.
func fileBody(enc Encoding, data []byte) map[Encoding]string {
	if enc == EncodingText {
		return map[Encoding]string{enc: string(data)}
	}
	return map[Encoding]string{enc: base64.StdEncoding.EncodeToString(data)}
}

// base64Spaces removes the spaces and line breaks some services put into Base64.
var base64Spaces = strings.NewReplacer(" ", "", "\t", "", "\r", "", "\n", "")

// errBadBase64 is the decoding error of a content_base64 that is not Base64.
var errBadBase64 = errors.New(`file: "content_base64" is not valid Base64`)

// decodeBase64 reads standard Base64, with or without padding, or its URL-safe alphabet, and
// ignores line breaks and spaces (some services wrap it).
func decodeBase64(s string) ([]byte, error) {
	s = base64Spaces.Replace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errBadBase64
}
