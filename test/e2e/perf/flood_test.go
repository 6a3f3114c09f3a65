package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/e2e/framework"

	"kubecore.io/kubecore/test/figure"
)

// floodHelperEnv, when set, makes this test binary the flood's client
// process: it sends the floodSpec of the variable's JSON and prints the
// framework.FloodResult as JSON. The flood then comes from a process of
// its own, as it would from other machines, and the benchmark process
// measuring the admin's GETs is not itself slowed by 10,000 client
// handshakes.
const floodHelperEnv = "KUBECORE_FLOOD_HELPER"

type floodSpec struct {
	URL, DataDir string
	Flood        framework.Flood
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(floodHelperEnv); spec != "" {
		os.Exit(runFloodHelper(spec))
	}
	os.Exit(m.Run())
}

func runFloodHelper(spec string) int {
	var fs floodSpec
	if err := json.Unmarshal([]byte(spec), &fs); err != nil {
		fmt.Fprintln(os.Stderr, "flood helper:", err)
		return 2
	}
	res, err := fs.Flood.Run(context.Background(), &framework.APIServer{URL: fs.URL, DataDir: fs.DataDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "flood helper:", err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "flood helper:", err)
		return 1
	}
	return 0
}

// floodFromHelper runs f against s from a child process of this binary.
func floodFromHelper(s *framework.APIServer, f framework.Flood) (framework.FloodResult, error) {
	spec, err := json.Marshal(floodSpec{URL: s.URL, DataDir: s.DataDir, Flood: f})
	if err != nil {
		return framework.FloodResult{}, err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floodHelperEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return framework.FloodResult{}, fmt.Errorf("flood helper: %w", err)
	}
	var res framework.FloodResult
	if err := json.Unmarshal(out, &res); err != nil {
		return framework.FloodResult{}, fmt.Errorf("flood helper output %q: %w", out, err)
	}
	return res, nil
}

// BenchmarkFlood fires 10,000 requests at once at `kubecore apiserver`
// (a connection and TLS handshake each: a third without credentials, a
// third with a wrong token, a third valid LISTs of 50 config maps by one
// user limited to 100 requests/s), with its audit log on, while the admin
// GETs a namespace every 10 ms on its open connection, and prints the
// p99 of those GETs and whether every flood request was answered and the
// server stayed up.
//
// Target: admin GET p99 <= 100 ms during the flood. Kubernetes' SLO for
// single-object reads is p99 <= 1 s; 100 ms is about where a person at
// kubectl starts to notice lag, and an unloaded GET takes about 1 ms
// here. On this machine the flood's client runs on the same 2 cores,
// so the server gets less CPU than it would facing remote clients.
func BenchmarkFlood(b *testing.B) {
	ctx := context.Background()
	work := b.TempDir()
	s, err := framework.NewAPIServer(filepath.Join(work, "data"), work)
	if err != nil {
		b.Fatal(err)
	}
	tokens := filepath.Join(work, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("flood-token,flooder,uid-flooder\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	s.LogLevel = 0
	s.ExtraArgs = []string{"--token-auth-file", tokens, "--max-requests-per-user-per-second", "100",
		"--audit-log-path", filepath.Join(work, "audit.log"), "--audit-log-maxsize", "100", "--audit-log-maxbackup", "1"}
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	}()
	cs := clientset(b, s)
	for i := range 50 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	s.Kubectl(b).MustRun(b, "create", "clusterrolebinding", "flooder-view", "--clusterrole=view", "--user=flooder")

	// The same GETs for 2 s without a flood: what this machine gives now.
	quietCtx, stopQuiet := context.WithTimeout(ctx, 2*time.Second)
	quiet, err := s.Probe(quietCtx, "/api/v1/namespaces/default")
	stopQuiet()
	if err != nil {
		b.Fatal(err)
	}
	_, quietP99 := percentiles(quiet)
	figure.Print(fmt.Sprintf("admin GET p99 without a flood (%d GETs)", len(quiet)), figure.Milliseconds(quietP99), "ms", "none set", true)

	const n = 10000
	f := framework.Flood{Requests: n, Token: "flood-token", ListPath: "/api/v1/namespaces/default/configmaps"}
	probeCtx, stopProbe := context.WithCancel(ctx)
	probed := make(chan []time.Duration, 1)
	probeErr := make(chan error, 1)
	go func() {
		lat, err := s.Probe(probeCtx, "/api/v1/namespaces/default")
		probed <- lat
		probeErr <- err
	}()
	res, err := floodFromHelper(s, f)
	stopProbe()
	lat := <-probed
	if err := <-probeErr; err != nil {
		b.Errorf("during the flood: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("flood %s", res)
	answered := n - res.Errors
	figure.Print("flood of 10,000 parallel requests: answered", answered, "req", "all", res.Errors == 0)
	figure.Print("flood of 10,000 parallel requests: duration", figure.Milliseconds(res.Duration), "ms", "none set", true)
	refused := res.Count(framework.FloodAnonymous, 401) + res.Count(framework.FloodWrongToken, 401)
	limited := res.Count(framework.FloodValidList, 429)
	figure.Print("flood: bad credentials answered 401", refused, "req", fmt.Sprint(f.Sent(framework.FloodAnonymous)+f.Sent(framework.FloodWrongToken)),
		refused == f.Sent(framework.FloodAnonymous)+f.Sent(framework.FloodWrongToken))
	figure.Print("flood: one user's lists beyond 100/s answered 429 + Retry-After", limited, "req", "> 0, all with Retry-After", limited > 0 && res.NoRetryAfter == 0)
	if len(lat) == 0 {
		b.Fatal("no admin GET completed during the flood")
	}
	p50, p99 := percentiles(lat)
	figure.Print(fmt.Sprintf("admin GET p50 during the flood (%d GETs)", len(lat)), figure.Milliseconds(p50), "ms", "none set", true)
	figure.Print(fmt.Sprintf("admin GET p99 during the flood (%d GETs)", len(lat)), figure.Milliseconds(p99), "ms", "<= 100", p99 <= 100*time.Millisecond)

	up := s.Running() && readyz(s) == nil
	figure.Print("apiserver up and /readyz ok after the flood", up, "", "true", up)
}

// readyz asks /readyz without credentials.
func readyz(s *framework.APIServer) error {
	c, err := s.HTTPClient(false)
	if err != nil {
		return err
	}
	resp, err := c.Get(s.URL + "/readyz")
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %d %s", resp.StatusCode, body)
	}
	return nil
}
