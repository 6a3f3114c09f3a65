package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// retryPolicy bounds the retries of one request.
type retryPolicy struct {
	// maxRetries is how many times a request is sent again after a 429 (or
	// a 5xx with Retry-After) or, for GET, a connection cut.
	maxRetries int
	// maxRetryAfter caps the wait a server's Retry-After may ask for.
	maxRetryAfter time.Duration
	// connBackoff is the first wait after a connection error; it doubles.
	connBackoff time.Duration
	// maxConnRetries bounds the retries after connection errors.
	maxConnRetries int
	sleep          func(ctx context.Context, d time.Duration) error
}

func defaultRetryPolicy() retryPolicy {
	return retryPolicy{
		maxRetries:     10,
		maxRetryAfter:  10 * time.Second,
		connBackoff:    100 * time.Millisecond,
		maxConnRetries: 3,
		sleep:          sleepCtx,
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send sends the request, waiting for the rate limiter before each attempt
// and retrying as the retry policy allows. The response's body is unread.
func (r *Request) send(ctx context.Context) (*http.Response, error) {
	policy := r.c.retry
	retries, connRetries := 0, 0
	for {
		if r.c.limiter != nil {
			if err := r.c.limiter.Wait(ctx); err != nil {
				return nil, fmt.Errorf("%s %s: client rate limiter: %w", r.verb, r.requestPath(), err)
			}
		}
		req, err := http.NewRequestWithContext(ctx, r.verb, r.URL().String(), r.reader())
		if err != nil {
			return nil, fmt.Errorf("build request %s %s: %w", r.verb, r.requestPath(), err)
		}
		req.Header = r.headers.Clone()
		if req.Header.Get("Accept") == "" {
			req.Header.Set("Accept", r.c.accept)
		}
		if r.hasBody && req.Header.Get("Content-Type") == "" {
			ct := r.bodyType
			if ct == "" {
				ct = r.c.contentType
			}
			req.Header.Set("Content-Type", ct)
		}
		resp, err := r.c.httpClient.Do(req)
		if err != nil {
			if ctx.Err() == nil && r.idempotent() && connRetries < policy.maxConnRetries && isConnectionCut(err) {
				wait := policy.connBackoff << connRetries
				wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
				connRetries++
				if policy.sleep(ctx, wait) == nil {
					continue
				}
			}
			return nil, r.transportError(ctx, err)
		}
		r.handleWarnings(resp)
		if wait, ok := retryAfter(resp); ok && retries < policy.maxRetries {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			retries++
			if err := policy.sleep(ctx, min(wait, policy.maxRetryAfter)); err != nil {
				return nil, r.transportError(ctx, err)
			}
			continue
		}
		return resp, nil
	}
}

// idempotent reports whether the request may be sent again after a
// connection error left it unknown whether the server acted on it. As
// client-go, only reads are.
func (r *Request) idempotent() bool { return r.verb == http.MethodGet || r.verb == http.MethodHead }

// retryAfter returns the wait a 429 or 5xx response asks for with
// Retry-After (seconds); other responses are not retried.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	secs, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || secs < 0 {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}

// isConnectionCut reports whether err says an established or reused
// connection broke before the response came: the request may be re-sent.
func isConnectionCut(err error) bool {
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection reset by peer") ||
		strings.Contains(msg, "use of closed network connection") ||
		strings.Contains(msg, "server closed idle connection") ||
		strings.Contains(msg, "http2: client connection lost") ||
		strings.Contains(msg, "GOAWAY")
}

// transportError names the server and the request of an error that came
// before any response.
func (r *Request) transportError(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w: %w", ctxErr, err)
	}
	return fmt.Errorf("%s %s on server %s: %w", r.verb, r.requestPath(), serverLabel(r.c.base, r.c.source), err)
}

// responseError turns a non-2xx response into an *errors.StatusError: the
// Status it carries, or a generic one made from the code and the body.
// Where the answer points at the client's configuration rather than at the
// object — credentials the server rejects (401), or an answer that is not
// a Status, so not from an API server spoken to the right way — the error
// is wrapped to name the request, the server and where its configuration
// came from; the Status stays reachable through errors.As.
func (r *Request) responseError(resp *http.Response, body []byte) error {
	if status, ok := decodeStatus(body); ok {
		err := statusError(status, resp.StatusCode)
		if resp.StatusCode == http.StatusUnauthorized {
			return r.configError(err, "")
		}
		return err
	}
	retry := 0
	if wait, ok := retryAfter(resp); ok {
		retry = int(wait / time.Second)
	}
	message := strings.TrimSpace(string(body))
	if !isText(resp.Header.Get("Content-Type")) || len(message) > 4096 {
		message = "unknown"
	}
	err := apierrors.NewGenericServerResponse(resp.StatusCode, r.verb,
		schema.GroupResource{Group: r.c.group, Resource: r.resource}, r.name, message, retry, true)
	said := ""
	if message != "unknown" && message != "" && !strings.Contains(err.Error(), message) {
		said = strings.Join(strings.Fields(message), " ")
		if len(said) > 200 {
			said = said[:200] + "..."
		}
	}
	return r.configError(err, said)
}

// configError names the request, the server and the source of the
// client's configuration in err, adding what the server said if it is
// not in err already.
func (r *Request) configError(err error, said string) error {
	if said != "" {
		return fmt.Errorf("%s %s on server %s: %w (the server said %q)", r.verb, r.requestPath(), serverLabel(r.c.base, r.c.source), err, said)
	}
	return fmt.Errorf("%s %s on server %s: %w", r.verb, r.requestPath(), serverLabel(r.c.base, r.c.source), err)
}

func isText(contentType string) bool {
	ct := strings.ToLower(contentType)
	return ct == "" || strings.HasPrefix(ct, "text/") || strings.Contains(ct, "json") || strings.Contains(ct, "yaml")
}

const statusFailure = metav1.StatusFailure

// typeMeta is the part of a body that says whether it is a Status.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeStatus decodes body when it is a meta/v1 Status.
func decodeStatus(body []byte) (*metav1.Status, bool) {
	// Cheap test first: most bodies are objects, not a Status.
	if !strings.Contains(string(body), `"Status"`) {
		return nil, false
	}
	var tm typeMeta
	if err := json.Unmarshal(body, &tm); err != nil || tm.Kind != "Status" {
		return nil, false
	}
	if tm.APIVersion != "v1" && tm.APIVersion != "meta.k8s.io/v1" {
		return nil, false
	}
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, false
	}
	return &status, true
}

// statusError returns status as an error, with the HTTP code filled in when
// the Status leaves it out.
func statusError(status *metav1.Status, code int) error {
	if status.Code == 0 {
		status.Code = int32(code)
	}
	if status.Status == "" {
		status.Status = statusFailure
	}
	return &apierrors.StatusError{ErrStatus: *status}
}

func isStatusObject(obj runtime.Object) bool {
	_, ok := obj.(*metav1.Status)
	return ok
}

// handleWarnings passes each Warning header of resp to the client's handler.
func (r *Request) handleWarnings(resp *http.Response) {
	h := r.c.warningHandler()
	if h == nil {
		return
	}
	for _, v := range resp.Header.Values("Warning") {
		for _, w := range parseWarnings(v) {
			h.HandleWarningHeader(w.code, w.agent, w.text)
		}
	}
}

type warning struct {
	code  int
	agent string
	text  string
}

// parseWarnings reads a Warning header value: comma-separated
// `code agent "text" ["date"]` entries. Malformed entries are skipped.
func parseWarnings(v string) []warning {
	var out []warning
	for rest := strings.TrimSpace(v); rest != ""; rest = strings.TrimLeft(rest, " ,") {
		codeStr, after, ok := strings.Cut(rest, " ")
		if !ok {
			break
		}
		agent, after, ok := strings.Cut(strings.TrimLeft(after, " "), " ")
		if !ok {
			break
		}
		text, remain, ok := cutQuoted(strings.TrimLeft(after, " "))
		if !ok {
			break
		}
		rest = strings.TrimLeft(remain, " ")
		if strings.HasPrefix(rest, `"`) { // an optional date
			if _, remain, ok = cutQuoted(rest); !ok {
				break
			}
			rest = remain
		}
		code, err := strconv.Atoi(codeStr)
		if err != nil || len(codeStr) != 3 {
			continue
		}
		out = append(out, warning{code: code, agent: agent, text: text})
	}
	return out
}

// cutQuoted reads the quoted string at the start of s (with backslash
// escapes) and returns its text and what follows.
func cutQuoted(s string) (text, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return "", s, false
}
