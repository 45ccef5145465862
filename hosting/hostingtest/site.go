package hostingtest

import (
	"bytes"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// sitePrefix is the path under which deployed sites are published.
const sitePrefix = "/site/"

// contentTypes maps file extensions to the Content-Type the published site sends. The table
// is fixed so that answers do not depend on the machine's MIME database.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".htm":         "text/html; charset=utf-8",
	".xhtml":       "application/xhtml+xml",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".json":        "application/json",
	".map":         "application/json",
	".webmanifest": "application/manifest+json",
	".txt":         "text/plain; charset=utf-8",
	".md":          "text/markdown; charset=utf-8",
	".csv":         "text/csv; charset=utf-8",
	".xml":         "application/xml",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".gif":         "image/gif",
	".webp":        "image/webp",
	".avif":        "image/avif",
	".ico":         "image/x-icon",
	".wasm":        "application/wasm",
	".woff":        "font/woff",
	".woff2":       "font/woff2",
	".ttf":         "font/ttf",
	".otf":         "font/otf",
	".pdf":         "application/pdf",
}

// contentType returns the Content-Type of a published file from its extension, or
// application/octet-stream.
func contentType(name string) string {
	if ct, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return ct
	}
	return "application/octet-stream"
}

// SiteURL returns the address at which a repository's deployed files are published, the
// preview_url of its deployments: URL + "/site/<name>/", the name escaped.
func (s *Server) SiteURL(name string) string {
	return s.URL + sitePrefix + url.PathEscape(name) + "/"
}

// serveSite answers GET and HEAD /site/<name>/<path> without authentication, from the files
// of the repository's latest deployment.
func (s *Server) serveSite(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rest := strings.TrimPrefix(r.URL.EscapedPath(), sitePrefix)
	nameEscaped, fileEscaped, hasSlash := strings.Cut(rest, "/")
	name, err := url.PathUnescape(nameEscaped)
	if err != nil || checkRepoName(name) != nil {
		http.NotFound(w, r)
		return
	}
	file, err := url.PathUnescape(fileEscaped)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if file == "" || strings.HasSuffix(file, "/") {
		file += "index.html"
	}

	s.mu.Lock()
	repo := s.repos[name]
	deployed := repo != nil && repo.latest() != nil
	var b, index *blob
	if deployed && checkFilePath(file) == nil {
		b, _ = repo.deployedFile(file)
		index, _ = repo.deployedFile(file + "/index.html")
	}
	s.mu.Unlock()

	switch {
	case !deployed:
		http.NotFound(w, r)
	case !hasSlash:
		redirect(w, r, sitePrefix+nameEscaped+"/")
	case b != nil:
		w.Header().Set("Content-Type", contentType(file))
		w.Header().Set("ETag", `"`+b.sha+`"`)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b.data))
	case index != nil:
		redirect(w, r, r.URL.EscapedPath()+"/")
	default:
		http.NotFound(w, r)
	}
}

// redirect sends a permanent redirect to target, keeping the query.
func redirect(w http.ResponseWriter, r *http.Request, target string) {
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}
