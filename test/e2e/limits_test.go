package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/auth/serviceaccount"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/e2e/framework"
)

// Limits of the server TestLimits starts: a user may send 20 requests a
// second in bursts of 40; the audit log rotates at 1 MiB keeping 2 files.
const (
	limitRate  = 20
	limitBurst = 40
	floodUser  = "flooder"
	floodToken = "flood-token"
)

// TestLimits is issue 9's bad-input acceptance with the built binary:
// refused credentials, a forged node, a 10 MiB body and a flood of 10,000
// parallel requests each get their Status, the server stays up and serves
// the admin throughout, and the audit log records it all.
func TestLimits(t *testing.T) {
	work := t.TempDir()
	auditLog := filepath.Join(work, "audit", "audit.log")
	s := startServerWith(t, framework.SubcommandAPIServer, "--token-auth-file", writeFile(t, "tokens.csv", floodToken+","+floodUser+",uid-flooder\n"),
		"--max-requests-per-user-per-second", strconv.Itoa(limitRate), "--max-requests-per-user-burst", strconv.Itoa(limitBurst),
		"--audit-log-path", auditLog, "--audit-log-maxsize", "1", "--audit-log-maxbackup", "2")
	k := s.Kubectl(t)
	k.MustRun(t, "create", "clusterrolebinding", "flooder-view", "--clusterrole=view", "--user="+floodUser)
	anonymous, err := s.HTTPClient(false)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := s.HTTPClient(true)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("credentials", func(t *testing.T) { testRefusedCredentials(t, s, anonymous) })
	t.Run("10 MiB body", func(t *testing.T) { testHugeBody(t, s, admin) })
	t.Run("flood", func(t *testing.T) { testFlood(t, s, anonymous, admin) })
	t.Run("audit", func(t *testing.T) { testAuditLog(t, s, anonymous, admin, auditLog) })
}

// TestAllInOneLimits: all-in-one passes the limit and audit flags to its
// API server, and its own components are exempt from the per-user rate
// limit: at one request a second the kubelet still registers its node
// and the scheduler still binds, while a service account gets 429.
func TestAllInOneLimits(t *testing.T) {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	s := startServerWith(t, framework.SubcommandAllInOne, "--max-requests-per-user-per-second", "1", "--max-requests-per-user-burst", "2",
		"--audit-log-path", auditLog)
	k := s.Kubectl(t)
	var node string
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name} {.items[0].status.conditions[?(@.type=='Ready')].status}")
		if f := strings.Fields(r.Stdout); len(f) == 2 && f[1] == "True" {
			node = f[0]
			return ""
		}
		return "no Ready node: " + r.String()
	})
	k.MustRunStdin(t, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: fake-placed\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: busybox\n    command: [\"sleep\", \"3600\"]\n", "create", "-f", "-")
	eventually(t, 30*time.Second, func() string {
		if r := k.Run(t, "get", "pod", "fake-placed", "-o", "jsonpath={.spec.nodeName}"); strings.TrimSpace(r.Stdout) == "" {
			return "the pod was not scheduled: " + r.String()
		}
		return ""
	})
	k.MustRun(t, "delete", "pod", "fake-placed", "--wait", "--timeout=60s")

	// A service account (no exemption) beyond its burst of 2.
	k.MustRun(t, "create", "serviceaccount", "limited", "-n", "default")
	uid := k.MustRun(t, "get", "serviceaccount", "limited", "-n", "default", "-o", "jsonpath={.metadata.uid}")
	token := serviceAccountToken(t, s, "limited", uid, nil)
	anonymous, err := s.HTTPClient(false)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	eventually(t, 10*time.Second, func() string {
		r := send(t, anonymous, newRequest(t, http.MethodGet, s.URL+"/api", nil, "Authorization", "Bearer "+token))
		codes[r.code]++
		if r.code != http.StatusTooManyRequests {
			return fmt.Sprintf("no 429 yet: %v", codes)
		}
		wantStatus(t, "a service account beyond its rate", r, 429, metav1.StatusReasonTooManyRequests)
		return ""
	})
	if codes[http.StatusOK] == 0 {
		t.Errorf("the service account was never served: %v", codes)
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	users := map[string]bool{}
	for _, evs := range readAuditLog(t, auditLog) {
		for _, ev := range evs {
			u := ev.User.Username
			users[u] = true
			if ev.ResponseStatus.Code == http.StatusTooManyRequests && u != "system:serviceaccount:default:limited" {
				t.Errorf("%s got 429: %s %s", u, ev.Verb, ev.RequestURI)
			}
		}
	}
	for _, u := range []string{"kubecore-admin", "system:kube-scheduler", "system:kube-controller-manager", "system:node:" + node, "system:serviceaccount:default:limited"} {
		if !users[u] {
			t.Errorf("the audit log has no event of %s; users seen: %v", u, users)
		}
	}
}

// serviceAccountToken signs a token for the service account name (in
// default, of that uid) with the cluster's key, issued by now (the
// current time when nil) and valid for an hour.
func serviceAccountToken(t *testing.T, s *framework.APIServer, name, uid string, now func() time.Time) string {
	t.Helper()
	key, err := pki.EnsureServiceAccountKey(filepath.Join(s.DataDir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(uid)}}
	tok, _, err := (&serviceaccount.Issuer{Key: key, Issuer: serviceaccount.DefaultIssuer, Now: now}).Token(sa, serviceaccount.Bound{}, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// startServerWith starts subcommand (an apiserver or all-in-one) of the
// test's own with extra flags, at -v 1: -v 3 would log each of the flood's
// requests, -v 2 each refused token.
func startServerWith(t *testing.T, subcommand string, args ...string) *framework.APIServer {
	t.Helper()
	work := t.TempDir()
	s, err := framework.NewAPIServer(filepath.Join(work, "data"), work)
	if err != nil {
		t.Fatal(err)
	}
	s.Subcommand = subcommand
	s.LogLevel = 1
	s.ExtraArgs = args
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Log(s.Log())
		}
	})
	return s
}

// response is a reply and the Status it carries, if any.
type response struct {
	code   int
	header http.Header
	status metav1.Status
	body   string
}

func send(t *testing.T, c *http.Client, req *http.Request) response {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	r := response{code: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &r.status)
	return r
}

func newRequest(t *testing.T, method, url string, body io.Reader, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// wantStatus checks that r is a Failure Status of code and reason whose
// message holds each of msgs.
func wantStatus(t *testing.T, what string, r response, code int, reason metav1.StatusReason, msgs ...string) {
	t.Helper()
	st := r.status
	if r.code != code || st.Kind != "Status" || st.Status != metav1.StatusFailure || st.Code != int32(code) || st.Reason != reason {
		t.Errorf("%s: %d %s, want a %d %s Status", what, r.code, r.body, code, reason)
		return
	}
	for _, m := range msgs {
		if !strings.Contains(st.Message, m) {
			t.Errorf("%s: message %q lacks %q", what, st.Message, m)
		}
	}
}

// testRefusedCredentials: a wrong token, an expired service account token
// and a certificate of another CA are 401; a node's certificate used on
// another node is 403. Each has a control that the same path works with
// good credentials.
func testRefusedCredentials(t *testing.T, s *framework.APIServer, anonymous *http.Client) {
	k := s.Kubectl(t)
	pkiDir := filepath.Join(s.DataDir, "pki")
	get := func(c *http.Client, path, token string) response {
		var h []string
		if token != "" {
			h = []string{"Authorization", "Bearer " + token}
		}
		return send(t, c, newRequest(t, http.MethodGet, s.URL+path, nil, h...))
	}

	wantStatus(t, "a wrong token", get(anonymous, "/api/v1/namespaces", "not-a-known-token"), 401, metav1.StatusReasonUnauthorized, "Unauthorized")

	// A service account token signed with the cluster's key, expired an
	// hour ago; the same token issued now is accepted.
	k.MustRun(t, "create", "serviceaccount", "expiring", "-n", "default")
	uid := k.MustRun(t, "get", "serviceaccount", "expiring", "-n", "default", "-o", "jsonpath={.metadata.uid}")
	fresh := serviceAccountToken(t, s, "expiring", uid, nil)
	expired := serviceAccountToken(t, s, "expiring", uid, func() time.Time { return time.Now().Add(-2 * time.Hour) })
	eventually(t, 10*time.Second, func() string {
		if r := get(anonymous, "/api", fresh); r.code != http.StatusOK {
			return fmt.Sprintf("a fresh service account token: %d %s", r.code, r.body)
		}
		return ""
	})
	wantStatus(t, "an expired service account token", get(anonymous, "/api", expired), 401, metav1.StatusReasonUnauthorized)

	// An admin certificate (system:masters) from another CA.
	hosts, err := pki.DefaultHosts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := pki.EnsureServing(t.TempDir(), pki.Options{Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	forgedAdmin := clientWithCert(t, s, otherCA, "admin", "kubecore-admin", pki.MastersGroup)
	wantStatus(t, "a certificate of another CA", get(forgedAdmin, "/api/v1/namespaces", ""), 401, metav1.StatusReasonUnauthorized)

	// A kubelet's certificate of the cluster CA, patching another node.
	ourCA, err := pki.EnsureServing(pkiDir, pki.Options{Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	k.MustRunStdin(t, "apiVersion: v1\nkind: Node\nmetadata:\n  name: victim\n", "create", "-f", "-")
	kubelet := clientWithCert(t, s, ourCA, "kubelet-intruder", "system:node:intruder", "system:nodes")
	patch := func() response {
		return send(t, kubelet, newRequest(t, http.MethodPatch, s.URL+"/api/v1/nodes/victim", strings.NewReader(`{"metadata":{"labels":{"hacked":"yes"}}}`),
			"Content-Type", "application/merge-patch+json"))
	}
	wantStatus(t, "a node's certificate patching another node", patch(), 403, metav1.StatusReasonForbidden,
		`User "system:node:intruder" cannot patch resource "nodes"`, "node 'intruder' cannot modify node 'victim'")
	if out := k.MustRun(t, "get", "node", "victim", "-o", "jsonpath={.metadata.labels}"); strings.Contains(out, "hacked") {
		t.Errorf("the refused patch changed the node: labels %s", out)
	}
}

// clientWithCert is an HTTPS client of s with a client certificate for
// user cn in groups, issued by ca.
func clientWithCert(t *testing.T, s *framework.APIServer, ca *pki.Bundle, name, cn string, groups ...string) *http.Client {
	t.Helper()
	kp, err := ca.EnsureClientCert(name, cn, groups)
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.HTTPClient(false)
	if err != nil {
		t.Fatal(err)
	}
	tr := base.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = []tls.Certificate{kp.TLSCertificate()}
	return &http.Client{Timeout: base.Timeout, Transport: tr}
}

// testHugeBody: a 10 MiB create is refused with 413 as soon as its
// Content-Length is read: the answer comes while only 1 MiB was sent.
func testHugeBody(t *testing.T, s *framework.APIServer, admin *http.Client) {
	const size = 10 << 20
	pr, pw := io.Pipe()
	defer func() { _ = pw.Close() }()
	req := newRequest(t, http.MethodPost, s.URL+"/api/v1/namespaces/default/configmaps", pr, "Content-Type", "application/json")
	req.ContentLength = size
	got := make(chan response, 1)
	go func() { got <- send(t, admin, req) }()
	// The first MiB, and no more until the answer. The client stops
	// sending (an error here) once the answer has come.
	go func() {
		_, _ = io.WriteString(pw, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"a":"`+strings.Repeat("x", 1<<20))
	}()
	select {
	case r := <-got:
		wantStatus(t, "a 10 MiB body", r, 413, metav1.StatusReasonRequestEntityTooLarge)
	case <-time.After(20 * time.Second):
		t.Fatal("no answer to a 10 MiB body after its first MiB: the server waits for the rest")
	}
	if r := send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default/configmaps/huge", nil)); r.code != http.StatusNotFound {
		t.Errorf("the refused configmap: %d %s, want 404", r.code, r.body)
	}
}

// testFlood fires 10,000 requests at once while the admin GETs a
// namespace every 10 ms: the bad credentials get 401, the flooder's lists
// 200 up to its rate and 429 with Retry-After beyond, every admin GET
// succeeds, and the server is ready and serving afterwards.
func testFlood(t *testing.T, s *framework.APIServer, anonymous, admin *http.Client) {
	const n = 10000
	f := framework.Flood{Requests: n, Token: floodToken, ListPath: "/api/v1/namespaces/default/configmaps"}
	ctx, stopProbe := context.WithCancel(t.Context())
	type probed struct {
		lat []time.Duration
		err error
	}
	probe := make(chan probed, 1)
	go func() {
		lat, err := s.Probe(ctx, "/api/v1/namespaces/default")
		probe <- probed{lat, err}
	}()
	res, err := f.Run(t.Context(), s)
	stopProbe()
	p := <-probe
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("flood %s; %d admin GETs meanwhile", res, len(p.lat))
	if p.err != nil {
		t.Errorf("during the flood: %v", p.err)
	}
	if res.Errors > 0 {
		t.Errorf("%d requests of the flood got no answer: %v", res.Errors, res.FirstError)
	}
	for _, kind := range []string{framework.FloodAnonymous, framework.FloodWrongToken} {
		if got, want := res.Count(kind, 401), f.Sent(kind); got != want {
			t.Errorf("%s: %d answered 401, want all %d", kind, got, want)
		}
	}
	ok, limited := res.Count(framework.FloodValidList, 200), res.Count(framework.FloodValidList, 429)
	if sent := f.Sent(framework.FloodValidList); ok+limited != sent || ok < limitBurst || limited == 0 {
		t.Errorf("valid lists: %d answered 200 and %d 429 of %d: want at least the burst (%d) served and the rest refused", ok, limited, sent, limitBurst)
	}
	if res.NoRetryAfter > 0 {
		t.Errorf("%d answers 429 had no Retry-After", res.NoRetryAfter)
	}
	if len(p.lat) == 0 {
		t.Error("no admin GET completed during the flood")
	}
	if !s.Running() {
		t.Fatal("the server exited during the flood")
	}
	if r := send(t, anonymous, newRequest(t, http.MethodGet, s.URL+"/readyz", nil)); r.code != http.StatusOK || r.body != "ok" {
		t.Errorf("/readyz after the flood: %d %s", r.code, r.body)
	}
	if r := send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default/configmaps", nil)); r.code != http.StatusOK {
		t.Errorf("admin list after the flood: %d %s", r.code, r.body)
	}
}

// flooderGets sends GETs as the flooder until one is refused, and returns
// that answer; each request carries Audit-Id prefix-N.
func flooderGets(t *testing.T, s *framework.APIServer, c *http.Client, prefix string) response {
	t.Helper()
	for i := range 10 * limitBurst {
		r := send(t, c, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default/configmaps", nil,
			"Authorization", "Bearer "+floodToken, "Audit-Id", fmt.Sprintf("%s-%d", prefix, i)))
		if r.code != http.StatusOK {
			return r
		}
	}
	t.Fatalf("%d requests at once were all served, beyond a burst of %d", 10*limitBurst, limitBurst)
	return response{}
}

// testAuditLog: requests are recorded in audit.k8s.io/v1 Events under the
// ID their Audit-Id header names, watches at two stages, the log rotated
// during the flood keeping two old files, and the last events written on
// shutdown.
func testAuditLog(t *testing.T, s *framework.APIServer, anonymous, admin *http.Client, path string) {
	// A refusal by the rate limit, with its Status.
	r := flooderGets(t, s, anonymous, "e2e-flooder")
	wantStatus(t, "beyond the rate limit", r, 429, metav1.StatusReasonTooManyRequests, "Too many requests")
	if ra, _ := strconv.Atoi(r.header.Get("Retry-After")); ra < 1 || r.status.Details == nil || r.status.Details.RetryAfterSeconds != int32(ra) {
		t.Errorf("429: Retry-After %q, details %+v", r.header.Get("Retry-After"), r.status.Details)
	}
	limitedID := r.header.Get("Audit-Id")

	r = send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default", nil, "Audit-Id", "e2e-admin-get"))
	if got := r.header.Get("Audit-Id"); got != "e2e-admin-get" {
		t.Errorf("Audit-Id of the response %q, want the request's", got)
	}
	send(t, anonymous, newRequest(t, http.MethodGet, s.URL+"/api/v1/pods", nil, "Authorization", "Bearer wrong", "Audit-Id", "e2e-wrong-token"))
	send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", nil, "Audit-Id", "e2e-watch"))
	send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/default/configmaps", nil, "Audit-Id", "e2e-impersonate", "Impersonate-User", floodUser))
	if r := send(t, admin, newRequest(t, http.MethodGet, s.URL+"/version", nil)); len(r.header.Get("Audit-Id")) != 36 {
		t.Errorf("a request without Audit-Id got %q, want a UUID", r.header.Get("Audit-Id"))
	}
	send(t, admin, newRequest(t, http.MethodGet, s.URL+"/api/v1/namespaces/kube-system", nil, "Audit-Id", "e2e-last"))
	// Stopping the server flushes the log.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	events := readAuditLog(t, path)
	one := func(id string, stage string) apiserver.AuditEvent {
		t.Helper()
		for _, ev := range events[id] {
			if ev.Stage == stage {
				return ev
			}
		}
		t.Errorf("no %s event of %s in the audit log: %+v", stage, id, events[id])
		return apiserver.AuditEvent{}
	}
	complete := apiserver.AuditStageResponseComplete
	ev := one("e2e-admin-get", complete)
	if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Level != "Metadata" || ev.Verb != "get" ||
		ev.User.Username != "kubecore-admin" || ev.ResponseStatus == nil || ev.ResponseStatus.Code != 200 ||
		ev.ObjectRef == nil || ev.ObjectRef.Resource != "namespaces" || ev.ObjectRef.Name != "default" || ev.ObjectRef.APIVersion != "v1" ||
		len(ev.SourceIPs) != 1 || ev.SourceIPs[0] != "127.0.0.1" || ev.UserAgent == "" || ev.RequestURI != "/api/v1/namespaces/default" ||
		ev.StageTimestamp.Before(ev.RequestReceivedTimestamp.Time) {
		t.Errorf("admin GET: %+v", ev)
	}
	if ev := one("e2e-wrong-token", complete); ev.ResponseStatus == nil || ev.ResponseStatus.Code != 401 || ev.User.Username != "" {
		t.Errorf("wrong token: %+v", ev)
	}
	if ev := one(limitedID, complete); ev.ResponseStatus == nil || ev.ResponseStatus.Code != 429 || ev.User.Username != floodUser || ev.Verb != "list" {
		t.Errorf("rate limited: %+v", ev)
	}
	started, done := one("e2e-watch", apiserver.AuditStageResponseStarted), one("e2e-watch", complete)
	if started.Verb != "watch" || done.StageTimestamp.Sub(started.StageTimestamp.Time) < 900*time.Millisecond {
		t.Errorf("watch: started %+v, complete %+v", started, done)
	}
	if ev := one("e2e-impersonate", complete); ev.User.Username != "kubecore-admin" || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != floodUser {
		t.Errorf("impersonation: %+v", ev)
	}
	one("e2e-last", complete)

	// The flood's events rotated the log at 1 MiB; two old files are kept.
	ext := filepath.Ext(path)
	backups, err := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext)
	if err != nil {
		t.Fatal(err)
	}
	if len(backups) != 2 {
		t.Errorf("rotated audit logs %v, want 2", backups)
	}
	for _, p := range append(backups, path) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 1<<20 {
			t.Errorf("%s holds %d bytes, want at most 1 MiB", p, st.Size())
		}
	}
}

// readAuditLog returns the events of the log file by audit ID; every line
// must be one.
func readAuditLog(t *testing.T, path string) map[string][]apiserver.AuditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string][]apiserver.AuditEvent{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev apiserver.AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.AuditID == "" {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		out[ev.AuditID] = append(out[ev.AuditID], ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
