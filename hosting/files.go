package hosting

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// FileWrite is the answer of PutFile. The API description does not show the answer's members:
// Size and SHA are set when the service sent them.
type FileWrite struct {
	// Path is the file's path in the repository.
	Path string
	// Encoding is how the content was sent (see ContentEncoding).
	Encoding Encoding
	// Method is the method that stored the file: PUT, or POST when a CDN blocked the PUT.
	Method string
	// Size is the stored length in bytes; nil when not sent.
	Size *int64
	// SHA is the hexadecimal SHA-1 the service gives for the content; "" when not sent.
	SHA string
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// fileWriteAnswer is the answer of a file write: the entry under file, data or result, or at
// the top level. None of it is required.
type fileWriteAnswer struct {
	envelope
	fileEntryWire
	File   jsonmember.Optional[FileEntry] `json:"file"`
	Data   jsonmember.Optional[FileEntry] `json:"data"`
	Result jsonmember.Optional[FileEntry] `json:"result"`
}

// PutFile creates or replaces the file at path in repository repo with data. path may be
// nested ("assets/img/logo.png"); each segment is escaped in the address. The content goes as
// text or as Base64 as ContentEncoding decides.
//
// The write is a PUT, retried like any idempotent request. When a CDN or firewall answers the
// PUT with a 403 HTML block page, PutFile sends the write once more as a POST to the same
// address with content_base64, as the API description advises; the remedy is logged and
// counted in GatewayRemedies. When the POST is blocked too, the error matches ErrBlocked. The written
// file joins the next commit.
func (c *Client) PutFile(ctx context.Context, repo, path string, data []byte) (*FileWrite, error) {
	if err := cmp.Or(checkRepoName("name", repo), checkPath("path", path)); err != nil {
		return nil, err
	}
	enc := ContentEncoding(path, data)
	endpoint := fileEndpoint(repo, path)
	req := &httpcore.Request{Method: http.MethodPut, Path: endpoint, Body: httpcore.JSON(fileBody(enc, data))}
	var a fileWriteAnswer
	resp, err := c.do(ctx, req, &a)
	if errors.Is(err, ErrBlocked) {
		c.blockedPutRetries.Add(1)
		c.logRemedy(ctx, "POST with content_base64 after a 403 block page to PUT", req.Method, err)
		enc = EncodingBase64
		// A file write sets the file's content, whatever was there: repeating it is safe.
		req = &httpcore.Request{Method: http.MethodPost, Path: endpoint, Body: httpcore.JSON(fileBody(enc, data)), Retry: httpcore.RetrySafe}
		a = fileWriteAnswer{}
		resp, err = c.do(ctx, req, &a)
	}
	if err != nil {
		return nil, err
	}
	e, ok := jsonmember.First(a.File, a.Data, a.Result)
	if !ok {
		e = a.fileEntryWire.entry(path, nil)
	}
	return &FileWrite{Path: path, Encoding: enc, Method: req.Method, Size: e.Size, SHA: e.SHA, Raw: resp.Body, Response: resp.Meta()}, nil
}

// File is a file read by Client.File.
type File struct {
	// Path is the file's path in the repository.
	Path string
	// Content is the file's bytes, decoded from whichever member carried them.
	Content []byte
	// Encoding is how the answer carried the content.
	Encoding Encoding
	// Size is the length the service gives; nil when not sent.
	Size *int64
	// SHA is the hexadecimal SHA-1 the service gives; "" when not sent.
	SHA string
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// fileContentFields are a file's entry and its content: content (text, or Base64 when
// encoding says "base64") or content_base64.
type fileContentFields struct {
	fileEntryWire
	Content            jsonmember.Optional[string] `json:"content"`
	ContentBase64      jsonmember.Optional[string] `json:"content_base64"`
	ContentBase64Camel jsonmember.Optional[string] `json:"contentBase64"`
	Encoding           jsonmember.Optional[string] `json:"encoding"`
}

// hasContent reports whether f carries the content.
func (f *fileContentFields) hasContent() bool {
	return f.Content.IsSet() || f.ContentBase64.IsSet() || f.ContentBase64Camel.IsSet()
}

// content decodes the content, reporting how it was carried.
func (f *fileContentFields) content() ([]byte, Encoding, error) {
	if b64, ok := jsonmember.First(f.ContentBase64, f.ContentBase64Camel); ok {
		b, err := decodeBase64(b64)
		return b, EncodingBase64, err
	}
	if strings.EqualFold(f.Encoding.Or(""), "base64") {
		b, err := decodeBase64(f.Content.Or(""))
		return b, EncodingBase64, err
	}
	return []byte(f.Content.Or("")), EncodingText, nil
}

// fileAnswer is the answer of GET /repos/<name>/files/<path>: the content at the top level
// or inside file, data or result. The content is required.
type fileAnswer struct {
	envelope
	fileContentFields
	File   jsonmember.Optional[fileContentFields] `json:"file"`
	Data   jsonmember.Optional[fileContentFields] `json:"data"`
	Result jsonmember.Optional[fileContentFields] `json:"result"`
	part   *fileContentFields
	data   []byte
	enc    Encoding
}

// check finds and decodes the content.
func (a *fileAnswer) check() error {
	for _, l := range [...]jsonmember.Optional[fileContentFields]{a.File, a.Data, a.Result} {
		if p, ok := l.Get(); ok && p.hasContent() {
			part := p // only the part chosen escapes
			a.part = &part
			break
		}
	}
	if a.part == nil {
		if !a.hasContent() {
			return jsonmember.Missing("file", "content")
		}
		a.part = &a.fileContentFields
	}
	var err error
	a.data, a.enc, err = a.part.content()
	return err
}

// File reads the file at path in repository repo and returns its bytes, whether the
// service sent them as text or as Base64.
func (c *Client) File(ctx context.Context, repo, path string) (*File, error) {
	if err := cmp.Or(checkRepoName("name", repo), checkPath("path", path)); err != nil {
		return nil, err
	}
	var a fileAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: fileEndpoint(repo, path)}, &a)
	if err != nil {
		return nil, err
	}
	e := a.part.entry(path, nil)
	return &File{Path: path, Content: a.data, Encoding: a.enc, Size: e.Size, SHA: e.SHA, Raw: resp.Body, Response: resp.Meta()}, nil
}

// Deletion is the answer of DeleteFile.
type Deletion struct {
	// Path is the deleted file's path.
	Path string
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// DeleteFile deletes the file at path in repository repo; the deletion joins the next commit.
// It is retried like any idempotent request, so a retry after a lost answer may meet the
// service's error for a file that is already gone.
func (c *Client) DeleteFile(ctx context.Context, repo, path string) (*Deletion, error) {
	if err := cmp.Or(checkRepoName("name", repo), checkPath("path", path)); err != nil {
		return nil, err
	}
	return c.deleteFile(ctx, repo, path)
}

// deleteFile is DeleteFile after validation.
func (c *Client) deleteFile(ctx context.Context, repo, path string) (*Deletion, error) {
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodDelete, Path: fileEndpoint(repo, path)}, nil)
	if err != nil {
		return nil, err
	}
	return &Deletion{Path: path, Raw: resp.Body, Response: resp.Meta()}, nil
}
