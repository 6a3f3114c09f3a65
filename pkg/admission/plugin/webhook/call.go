package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "kubecore.io/api/admission/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/webhook"
)

// Locator resolves a webhook's clientConfig (webhook.Resolver).
type Locator interface {
	Locate(ctx context.Context, cc webhook.ClientConfig) (webhook.Location, error)
}

var _ Locator = webhook.Resolver{}

// maxResponseBytes bounds what is read of a webhook's answer.
const maxResponseBytes = 3 * 1024 * 1024

// callError is a failure to get a verdict from a webhook: what
// failurePolicy decides about.
type callError struct {
	webhook string
	err     error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.err)
}

func (e *callError) Unwrap() error { return e.err }

// caller POSTs AdmissionReviews.
type caller struct {
	locator Locator
	clients *webhook.Clients
}

// call sends req to h and returns the webhook's response; every failure
// to get one is a *callError.
func (c *caller) call(ctx context.Context, h *hook, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	fail := func(format string, args ...any) error {
		return &callError{webhook: h.name, err: fmt.Errorf(format, args...)}
	}
	if !h.reviewV1 {
		return nil, fail("webhook does not accept v1 AdmissionReview")
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	loc, err := c.locator.Locate(ctx, h.client)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	rt, err := c.clients.Transport(loc)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	body, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		return nil, fail("encode the AdmissionReview: %w", err)
	}
	u := *loc.URL
	q := u.Query()
	q.Set("timeout", h.timeout.String())
	u.RawQuery = q.Encode()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Transport: rt}).Do(hreq)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fail("failed to call webhook: read the response: %w", err)
	}
	if len(data) > maxResponseBytes {
		return nil, fail("failed to call webhook: the response is larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail("failed to call webhook: the server responded with status code %d: %s", resp.StatusCode, truncate(string(data), 256))
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fail("failed to call webhook: decode the response: %w", err)
	}
	if gvk := review.GroupVersionKind(); gvk != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return nil, fail("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", gvk)
	}
	if review.Response == nil {
		return nil, fail("webhook response was absent")
	}
	if review.Response.UID != req.UID {
		return nil, fail("expected response.uid=%q, got %q", req.UID, review.Response.UID)
	}
	return review.Response, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// denied is the error of a webhook's refusal, worded and coded as
// Kubernetes does: the webhook's status code (400 when it gives none or
// one below 400), its message, else its reason, after "admission webhook
// NAME denied the request".
func denied(name string, result *metav1.Status) error {
	st := metav1.Status{Status: metav1.StatusFailure, Code: 400}
	if result != nil {
		st.Code, st.Reason, st.Details = result.Code, result.Reason, result.Details
		if st.Code < 400 {
			st.Code = 400
		}
	}
	switch {
	case result != nil && result.Message != "":
		st.Message = fmt.Sprintf("admission webhook %q denied the request: %s", name, result.Message)
	case result != nil && result.Reason != "":
		st.Message = fmt.Sprintf("admission webhook %q denied the request: %s", name, result.Reason)
	default:
		st.Message = fmt.Sprintf("admission webhook %q denied the request without explanation", name)
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// failure decides a call error per failurePolicy: nil when the webhook
// fails open, else a 500 Internal error.
func failure(h *hook, err error) error {
	var ce *callError
	if !errors.As(err, &ce) {
		return err
	}
	if h.failOpen {
		return nil
	}
	return apierrors.NewInternalError(err)
}

// warning makes a webhook's warning fit a header: one line, bounded.
func warning(w string) string {
	w = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, w)
	return truncate(w, 1024)
}
