package proxy

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// maxRewriteBytes bounds the HTML page the proxy reads into memory to
// rewrite; a larger one is passed on as it is.
const maxRewriteBytes = 16 << 20

// urlAttributes are, per HTML element, the attributes whose value is a
// URL (HTML 4 and 5).
var urlAttributes = map[string][]string{
	"a":          {"href"},
	"applet":     {"codebase"},
	"area":       {"href"},
	"audio":      {"src"},
	"base":       {"href"},
	"blockquote": {"cite"},
	"body":       {"background"},
	"button":     {"formaction"},
	"command":    {"icon"},
	"del":        {"cite"},
	"embed":      {"src"},
	"form":       {"action"},
	"frame":      {"longdesc", "src"},
	"head":       {"profile"},
	"html":       {"manifest"},
	"iframe":     {"longdesc", "src"},
	"img":        {"longdesc", "src", "usemap"},
	"input":      {"src", "usemap", "formaction"},
	"ins":        {"cite"},
	"link":       {"href"},
	"object":     {"classid", "codebase", "data", "usemap"},
	"q":          {"cite"},
	"script":     {"src"},
	"source":     {"src"},
	"track":      {"src"},
	"video":      {"poster", "src"},
}

// linkRewriter makes the links of a backend's responses go through the
// proxy subresource: a backend serving "/status" links to it as "/status",
// which the client must reach as ".../pods/NAME/proxy/status".
type linkRewriter struct {
	backend *url.URL // where the proxy sends requests
	prefix  string   // the subresource's path, .../proxy
}

// rewrite returns the link as the client must follow it: a path of the
// backend's, or a URL naming the backend's host, gets the subresource's
// path in front of it (and loses the backend's scheme and host); a
// relative link, one to another host and one already below the prefix
// stay as they are.
func (lr linkRewriter) rewrite(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	if u.Host != "" && u.Host != lr.backend.Host {
		return link
	}
	if u.Scheme != "" && u.Host == "" {
		return link // mailto:, javascript:, data:
	}
	if !strings.HasPrefix(u.Path, "/") {
		return link
	}
	u.Scheme, u.Host, u.User = "", "", nil
	if strings.HasPrefix(u.Path, lr.prefix+"/") || u.Path == lr.prefix {
		return u.String()
	}
	trailing := strings.HasSuffix(u.Path, "/")
	u.Path = path.Join(lr.prefix, u.Path)
	if trailing && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	return u.String()
}

// rewriteResponse is the reverse proxy's ModifyResponse: the Location of
// a redirect, and the links of an HTML body (plain or gzip-encoded; the
// rewritten body is sent plain).
func (lr linkRewriter) rewriteResponse(resp *http.Response) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if loc := resp.Header.Get("Location"); loc != "" {
			resp.Header.Set("Location", lr.rewrite(loc))
		}
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "text/html" {
		return nil
	}
	if resp.ContentLength > maxRewriteBytes {
		return nil
	}
	var body io.Reader = resp.Body
	switch enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return fmt.Errorf("read the backend's gzip-encoded HTML: %w", err)
		}
		body = zr
	default:
		return nil // an encoding this proxy cannot read: as it is
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxRewriteBytes+1))
	if err != nil {
		return fmt.Errorf("read the backend's HTML: %w", err)
	}
	if err := resp.Body.Close(); err != nil {
		return fmt.Errorf("read the backend's HTML: %w", err)
	}
	out := raw
	if len(raw) <= maxRewriteBytes {
		out = lr.rewriteHTML(raw)
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Header.Del("Content-Encoding")
	return nil
}

// rewriteHTML rewrites the URL attributes of the page's tags; everything
// else is copied byte for byte.
func (lr linkRewriter) rewriteHTML(page []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(page) + 256)
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			// io.EOF, or a page the tokenizer gives up on: the rest as it is.
			out.Write(z.Raw())
			return out.Bytes()
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			out.Write(z.Raw())
			continue
		}
		raw := append([]byte(nil), z.Raw()...)
		tok := z.Token()
		attrs, ok := urlAttributes[tok.Data]
		changed := false
		if ok {
			for i, a := range tok.Attr {
				if a.Namespace != "" || !slices.Contains(attrs, a.Key) {
					continue
				}
				if v := lr.rewrite(a.Val); v != a.Val {
					tok.Attr[i].Val, changed = v, true
				}
			}
		}
		if changed {
			out.WriteString(tok.String())
		} else {
			out.Write(raw)
		}
	}
}
