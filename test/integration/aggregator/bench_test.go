package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/figure"
)

// overheadTarget is the most a proxied GET may add at the median.
const overheadTarget = 2 * time.Millisecond

// BenchmarkProxyOverhead measures a GET of one flunder through the
// aggregator (authentication, authorization, proxy over TLS with the
// front-proxy certificate) against the same GET sent to the backend
// directly with that certificate, both on kept-alive connections, in one
// run, and prints p50/p99 of each and the median overhead.
func BenchmarkProxyOverhead(b *testing.B) {
	e := newEnv(b, "")
	bk := e.startBackend("wardle")
	e.createAPIService(group+"/"+version, "wardle", bk.srv.CABundle, 1000)
	e.waitAvailable(version+"."+group, "True", "Passed")
	path := gvPath + "/namespaces/" + e.ns + "/flunders/one"
	e.eventually("the proxy", func() bool {
		code, _ := e.do("GET", path, "", nil)
		return code == http.StatusOK
	})

	dir := filepath.Join(e.api.DataDir, "pki", pki.FrontProxyDir)
	fp, err := tls.LoadX509KeyPair(filepath.Join(dir, pki.FrontProxyClientName+".crt"), filepath.Join(dir, pki.FrontProxyClientName+".key"))
	if err != nil {
		b.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bk.srv.CABundle)
	direct := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, Certificates: []tls.Certificate{fp}, MinVersion: tls.VersionTLS12,
	}}}
	const n = 500
	measure := func(hc *http.Client, url string, headers map[string]string) []time.Duration {
		var lat []time.Duration
		for i := range n + 20 {
			req, err := http.NewRequest("GET", url, nil)
			if err != nil {
				b.Fatal(err)
			}
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			t0 := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %d", url, resp.StatusCode)
			}
			if i >= 20 { // warm-up: connections, caches
				lat = append(lat, time.Since(t0))
			}
		}
		return lat
	}
	b.ResetTimer()
	directLat := measure(direct, bk.srv.URL+path, map[string]string{"X-Remote-User": pki.AdminCN})
	proxiedLat := measure(e.hc, e.api.URL+path, nil)
	b.StopTimer()
	d50, d99 := percentiles(directLat)
	p50, p99 := percentiles(proxiedLat)
	figure.Print("GET to the backend directly, p50 / p99", fmt.Sprintf("%v / %v", d50, d99), "", "none set", true)
	figure.Print("GET through the aggregator, p50 / p99", fmt.Sprintf("%v / %v", p50, p99), "", "none set", true)
	figure.Print("aggregator overhead at p50", fmt.Sprintf("%.2f", figure.Milliseconds(p50-d50)), "ms", fmt.Sprintf("<= %.0f ms", figure.Milliseconds(overheadTarget)), p50-d50 <= overheadTarget)
}

// percentiles returns the p50 and p99 of d.
func percentiles(d []time.Duration) (time.Duration, time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration {
		return s[min(len(s)-1, int(q*float64(len(s))))].Round(10 * time.Microsecond)
	}
	return at(0.50), at(0.99)
}
