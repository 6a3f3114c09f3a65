package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Flood is a burst of LISTs of ListPath sent all at once, each on a
// connection of its own (a TLS handshake each, as from many clients), in
// three equal parts: without credentials, with a bearer token the server
// does not know, and with Token, a user's valid token.
type Flood struct {
	Requests int
	Token    string
	ListPath string
}

// Kinds of the requests of a flood, in the order they take turns.
const (
	FloodAnonymous  = "anonymous"
	FloodWrongToken = "wrong token"
	FloodValidList  = "valid list"
)

var floodKinds = []string{FloodAnonymous, FloodWrongToken, FloodValidList}

// Sent is how many requests of kind the flood sends.
func (f Flood) Sent(kind string) int {
	i := slices.Index(floodKinds, kind)
	if i < 0 {
		return 0
	}
	return (f.Requests - i + len(floodKinds) - 1) / len(floodKinds)
}

// FloodResult counts the answers of a flood.
type FloodResult struct {
	// Codes counts the response codes of each kind of request.
	Codes map[string]map[int]int
	// NoRetryAfter counts the 429 answers without a Retry-After header.
	NoRetryAfter int
	// Errors counts requests that got no answer; FirstError is one.
	Errors     int
	FirstError string
	Duration   time.Duration
}

// Count is how many requests of kind got code.
func (r FloodResult) Count(kind string, code int) int { return r.Codes[kind][code] }

// Run sends the flood to s and returns once every request is answered.
func (f Flood) Run(ctx context.Context, s *APIServer) (FloodResult, error) {
	base, err := s.HTTPClient(false)
	if err != nil {
		return FloodResult{}, err
	}
	tlsConfig := base.Transport.(*http.Transport).TLSClientConfig
	client := &http.Client{
		Timeout: 2 * time.Minute,
		Transport: &http.Transport{
			TLSClientConfig:   tlsConfig,
			DisableKeepAlives: true,
			// HTTP/1.1, so that every request is a connection of its own.
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
		},
	}
	res := FloodResult{Codes: map[string]map[int]int{}}
	for _, k := range floodKinds {
		res.Codes[k] = map[int]int{}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	startGun := make(chan struct{})
	for i := range f.Requests {
		kind := floodKinds[i%len(floodKinds)]
		wg.Go(func() {
			<-startGun
			code, retryAfter, err := f.send(ctx, client, s.URL, kind)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Errors++
				if res.FirstError == "" {
					res.FirstError = err.Error()
				}
				return
			}
			res.Codes[kind][code]++
			if code == http.StatusTooManyRequests && retryAfter == "" {
				res.NoRetryAfter++
			}
		})
	}
	start := time.Now()
	close(startGun)
	wg.Wait()
	res.Duration = time.Since(start)
	return res, nil
}

func (f Flood) send(ctx context.Context, c *http.Client, url, kind string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+f.ListPath, nil)
	if err != nil {
		return 0, "", err
	}
	switch kind {
	case FloodWrongToken:
		req.Header.Set("Authorization", "Bearer not-a-known-token")
	case FloodValidList:
		req.Header.Set("Authorization", "Bearer "+f.Token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s request: %w", kind, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, "", fmt.Errorf("%s response: %w", kind, err)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), nil
}

// String sums the result up: codes by kind, errors and duration.
func (r FloodResult) String() string {
	s := fmt.Sprintf("in %s:", r.Duration.Round(time.Millisecond))
	for _, kind := range floodKinds {
		codes := make([]int, 0, len(r.Codes[kind]))
		for c := range r.Codes[kind] {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		s += " " + kind + " {"
		for i, c := range codes {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%d: %d", c, r.Codes[kind][c])
		}
		s += "}"
	}
	if r.Errors > 0 {
		s += fmt.Sprintf("; %d without an answer, e.g. %s", r.Errors, r.FirstError)
	}
	return s
}

// Probe sends GET path as the admin every 10 ms, on one connection, until
// ctx ends, and returns each latency: what the server gives others while
// something else goes on. A failed or refused GET is an error.
func (s *APIServer) Probe(ctx context.Context, path string) ([]time.Duration, error) {
	c, err := s.HTTPClient(true)
	if err != nil {
		return nil, err
	}
	var lat []time.Duration
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		t0 := time.Now()
		resp, err := c.Get(s.URL + path)
		if err != nil {
			return lat, fmt.Errorf("admin GET %s: %w", path, err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return lat, fmt.Errorf("admin GET %s: %w", path, err)
		}
		if resp.StatusCode != http.StatusOK {
			return lat, fmt.Errorf("admin GET %s: %s", path, resp.Status)
		}
		lat = append(lat, time.Since(t0))
		select {
		case <-ctx.Done():
			return lat, nil
		case <-tick.C:
		}
	}
}
