package apiserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/apirequest"
)

// timeoutServer runs h behind the timeout filter alone.
func timeoutServer(timeout time.Duration, h http.HandlerFunc) *httptest.Server {
	s := &Server{cfg: &completedConfig{Config{RequestTimeout: timeout}}}
	filtered := s.withTimeout(h)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &apirequest.RequestInfo{IsResourceRequest: true, Verb: "list"}
		filtered.ServeHTTP(w, r.WithContext(apirequest.WithRequestInfo(r.Context(), info)))
	}))
}

func TestTimeoutFilter(t *testing.T) {
	big := bytes.Repeat([]byte("x"), streamAfter+1)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		code    int
		body    []byte
	}{
		{"small answer in time", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Kept", "yes")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("ok"))
		}, http.StatusCreated, []byte("ok")},
		{"big answer in time, streamed", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Kept", "yes")
			_, _ = w.Write(big[:10])
			_, _ = w.Write(big[10:])
		}, http.StatusOK, big},
		{"late small answer: 504", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			_, _ = w.Write([]byte("late"))
		}, http.StatusGatewayTimeout, nil},
		{"big answer under way at the timeout: it ends with the handler", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Kept", "yes")
			_, _ = w.Write(big)
			<-r.Context().Done()
			_, _ = w.Write([]byte("tail"))
		}, http.StatusOK, append(bytes.Clone(big), "tail"...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := timeoutServer(100*time.Millisecond, tc.handler)
			defer ts.Close()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, ts.URL, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got bytes.Buffer
			_, _ = got.ReadFrom(resp.Body)
			if resp.StatusCode != tc.code {
				t.Fatalf("status %d, want %d (%.100s)", resp.StatusCode, tc.code, got.Bytes())
			}
			if tc.code != http.StatusGatewayTimeout {
				if resp.Header.Get("X-Kept") != "yes" {
					t.Errorf("headers lost: %v", resp.Header)
				}
				if !bytes.Equal(got.Bytes(), tc.body) {
					t.Errorf("body of %d bytes, want %d", got.Len(), len(tc.body))
				}
			}
		})
	}
}
