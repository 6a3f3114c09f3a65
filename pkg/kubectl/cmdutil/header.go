package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
)

// RequestHeader returns the headers the client of cfg sends with every
// request (credentials, impersonation, user agent), read by running its
// transport over a request that goes nowhere.
func RequestHeader(cfg *rest.Config) (http.Header, error) {
	c := rest.CopyConfig(cfg)
	c.TLSClientConfig = rest.TLSClientConfig{}
	c.WrapTransport = nil
	var header http.Header
	c.Transport = roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		header = r.Header.Clone()
		return nil, errHeaderOnly
	})
	rt, err := rest.TransportFor(c)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodGet, "https://headers.invalid/", nil)
	if err != nil {
		return nil, err
	}
	if _, err := rt.RoundTrip(req); !errors.Is(err, errHeaderOnly) {
		return nil, fmt.Errorf("read the request headers: %w", err)
	}
	return header, nil
}

var errHeaderOnly = errors.New("headers only")

// UpgradeError is the server's Status (or message) when it refused to
// upgrade a connection (exec, port-forward), else err.
func UpgradeError(resp *http.Response, err error) error {
	if resp == nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		return &apierrors.StatusError{ErrStatus: st}
	}
	msg := strings.TrimSpace(string(body))
	if msg == "" {
		msg = resp.Status
	}
	return fmt.Errorf("unable to upgrade connection: %s", msg)
}
