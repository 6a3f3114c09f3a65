package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"

	"kubecore.io/kubecore/test/integration/framework"
	"kubecore.io/kubecore/test/utils/promtext"
)

// TestPriorityAndFairnessUnderFlood: a server with 4 seats. One user
// floods ConfigMap creates through a priority level of one seat that
// queues at most 10 of its requests; another user of the same level,
// another flow, keeps being served, and the controller-manager renews its
// Lease (leader-election level) within the renew deadline every time, as
// a node renews its heartbeat Lease (node-high level). The
// flood gets 429 Too Many Requests with Retry-After, and the metrics
// count what was queued, dispatched and rejected.
func TestPriorityAndFairnessUnderFlood(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.csv")
	// The two users' flows land on different queues of the level's 64
	// (one queue each, by the hash of "flood,<user>").
	if err := os.WriteFile(file, []byte("fl00d,flooder,uid-flooder,team\nd4ve,dave,uid-dave,team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, TokenAuthFile: file, MaxRequestsInFlight: 2, MaxMutatingRequestsInFlight: 2})
	c := &clients{t: t, s: s, admin: s.Clientset(t)}
	ctx := context.Background()

	if _, err := c.admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "team-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "team"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A level of its own for the two users: created now, it must be
	// picked up live.
	fc := groupClient(t, s.Config, flowcontrolv1.SchemeGroupVersion.String())
	create := func(resource, body string) {
		if err := fc.Post().Resource(resource).Body([]byte(body)).Do(ctx).Error(); err != nil {
			t.Fatalf("create %s: %v", resource, err)
		}
	}
	create("prioritylevelconfigurations", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"flood"},
		"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,"lendablePercent":0,
		"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":1,"queueLengthLimit":10}}}}}`)
	create("flowschemas", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"flood"},
		"spec":{"priorityLevelConfiguration":{"name":"flood"},"matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},
		"rules":[{"subjects":[{"kind":"Group","group":{"name":"team"}}],
		"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"],"clusterScope":true}]}]}}`)

	flooder := rawClient(t, c.withTokenConfig("fl00d"))
	dave := rawClient(t, c.withTokenConfig("d4ve"))
	levelUID := func() string {
		var pl flowcontrolv1.PriorityLevelConfiguration
		raw, err := fc.Get().Resource("prioritylevelconfigurations").Name("flood").Do(ctx).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &pl); err != nil {
			t.Fatal(err)
		}
		return string(pl.UID)
	}()
	eventually(t, "dave classified into the flood level", func() error {
		resp := dave.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", "")
		if got := resp.header.Get("X-Kubernetes-PF-PriorityLevel-UID"); resp.code != http.StatusOK || got != levelUID {
			return fmt.Errorf("code %d, priority level %q, want 200 and %q", resp.code, got, levelUID)
		}
		return nil
	})

	// The controller-manager's Lease, renewed every 50 ms during the
	// flood by a client of its own identity.
	kcm := c.withCert("kcm-apf", "system:kube-controller-manager")
	leases := kcm.CoordinationV1().Leases("kube-system")
	holder := "kcm-1"
	lease, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: ptrTo(int32(15))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// A node's heartbeat: its Lease, renewed by the kubelet's identity.
	kubelet := c.withCert("kubelet-apf1", "system:node:apf1", "system:nodes")
	if _, err := kubelet.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "apf1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nodeLeases := kubelet.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	nodeLease, err := nodeLeases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "apf1"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptrTo("apf1"), LeaseDurationSeconds: ptrTo(int32(40))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	floodCtx, stopFlood := context.WithCancel(ctx)
	var (
		wg                    sync.WaitGroup
		flood429, floodOK     atomic.Int64
		floodOther            atomic.Int64
		badRetryAfter, badMsg atomic.Int64
	)
	for g := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; floodCtx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"flood-%d-%d"},"data":{"k":"v"}}`, g, i)
				resp := flooder.do(t, http.MethodPost, "/api/v1/namespaces/default/configmaps", body)
				switch resp.code {
				case http.StatusCreated:
					floodOK.Add(1)
				case http.StatusTooManyRequests:
					flood429.Add(1)
					if ra, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || ra < 1 {
						badRetryAfter.Add(1)
					}
					if !strings.Contains(resp.body, "Too many requests, please try again later.") {
						badMsg.Add(1)
					}
				case 0:
					// The flood was stopped mid-request.
				default:
					floodOther.Add(1)
				}
			}
		}()
	}

	// While the flood lasts (until it has been shed 200 times and at
	// least 20 renewals and 20 of dave's requests went through), dave's
	// requests and the renewals are served, each renewal within the
	// 10 s renew deadline of the controller-manager, and so is the node's
	// heartbeat, within its Lease's 40 s.
	const renewDeadline, nodeLeaseDuration = 10 * time.Second, 40 * time.Second
	renewals, daveServed := 0, 0
	var worstRenewal time.Duration
	deadline := time.Now().Add(2 * time.Minute)
	for flood429.Load() < 200 || renewals < 20 || daveServed < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("after 2 minutes: %d flood 429s, %d renewals, %d of dave's requests", flood429.Load(), renewals, daveServed)
		}
		start := time.Now()
		now := metav1.NewMicroTime(time.Now())
		lease.Spec.RenewTime = &now
		lease, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("renewal %d: %v", renewals, err)
		}
		if took > renewDeadline {
			t.Fatalf("renewal %d took %s, past the renew deadline %s", renewals, took, renewDeadline)
		}
		worstRenewal = max(worstRenewal, took)
		renewals++
		start = time.Now()
		nodeLease.Spec.RenewTime = &now
		nodeLease, err = nodeLeases.Update(ctx, nodeLease, metav1.UpdateOptions{})
		if took := time.Since(start); err != nil || took > nodeLeaseDuration {
			t.Fatalf("node heartbeat %d: %v after %s (lease duration %s)", renewals, err, took, nodeLeaseDuration)
		}

		resp := dave.do(t, http.MethodPost, "/api/v1/namespaces/default/configmaps",
			fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dave-%d"}}`, daveServed))
		if resp.code != http.StatusCreated {
			t.Fatalf("dave's request %d during the flood: %d %s", daveServed, resp.code, resp.body)
		}
		daveServed++
		time.Sleep(50 * time.Millisecond)
	}
	stopFlood()
	wg.Wait()
	t.Logf("flood: %d created, %d shed; %d renewals (slowest %s); %d of dave's requests served", floodOK.Load(), flood429.Load(), renewals, worstRenewal, daveServed)
	if floodOther.Load() != 0 || badRetryAfter.Load() != 0 || badMsg.Load() != 0 {
		t.Errorf("flood: %d unexpected answers, %d 429s without Retry-After, %d without Kubernetes' message", floodOther.Load(), badRetryAfter.Load(), badMsg.Load())
	}

	metrics := scrape(t, c.s.Config)
	for _, want := range []struct {
		name    string
		labels  map[string]string
		atLeast float64
	}{
		{"apiserver_flowcontrol_rejected_requests_total", map[string]string{"flow_schema": "flood", "priority_level": "flood", "reason": "queue-full"}, 1},
		{"apiserver_flowcontrol_dispatched_requests_total", map[string]string{"flow_schema": "flood", "priority_level": "flood"}, float64(floodOK.Load() + int64(daveServed))},
		{"apiserver_flowcontrol_dispatched_requests_total", map[string]string{"flow_schema": "system-leader-election", "priority_level": "leader-election"}, float64(renewals)},
		{"apiserver_flowcontrol_dispatched_requests_total", map[string]string{"flow_schema": "system-node-high", "priority_level": "node-high"}, float64(renewals)},
		{"apiserver_flowcontrol_current_inqueue_requests", map[string]string{"flow_schema": "flood", "priority_level": "flood"}, 0},
		{"apiserver_flowcontrol_nominal_limit_seats", map[string]string{"priority_level": "flood"}, 1},
	} {
		got, ok := metrics.Value(want.name, want.labels)
		if !ok || got < want.atLeast {
			t.Errorf("%s%v = %v (present %v), want at least %v", want.name, want.labels, got, ok, want.atLeast)
		}
	}
	if got, _ := metrics.Value("apiserver_flowcontrol_rejected_requests_total",
		map[string]string{"flow_schema": "system-leader-election", "priority_level": "leader-election", "reason": "queue-full"}); got != 0 {
		t.Errorf("%v lease renewals rejected", got)
	}
}

// TestPriorityLevelChangesApplyLive: a FlowSchema sent to a level that
// does not exist is Dangling and not used; once the level is created the
// condition turns False and requests are classified into it.
func TestPriorityLevelChangesApplyLive(t *testing.T) {
	c := startWithTokens(t, "t0ken,erin,uid-erin,team")
	ctx := context.Background()
	fc := groupClient(t, c.s.Config, flowcontrolv1.SchemeGroupVersion.String())
	if err := fc.Post().Resource("flowschemas").Body([]byte(`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
		"metadata":{"name":"erin"},"spec":{"priorityLevelConfiguration":{"name":"erins"},"matchingPrecedence":200,
		"rules":[{"subjects":[{"kind":"User","user":{"name":"erin"}}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}}`)).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	dangling := func(want flowcontrolv1.ConditionStatus, reason string) {
		eventually(t, "Dangling "+string(want), func() error {
			raw, err := fc.Get().Resource("flowschemas").Name("erin").Do(ctx).Raw()
			if err != nil {
				return err
			}
			var fs flowcontrolv1.FlowSchema
			if err := json.Unmarshal(raw, &fs); err != nil {
				return err
			}
			for _, cond := range fs.Status.Conditions {
				if cond.Type == flowcontrolv1.FlowSchemaConditionDangling && cond.Status == want && cond.Reason == reason {
					return nil
				}
			}
			return fmt.Errorf("conditions %+v", fs.Status.Conditions)
		})
	}
	dangling(flowcontrolv1.ConditionTrue, "NotFound")
	erin := rawClient(t, c.withTokenConfig("t0ken"))
	if err := fc.Post().Resource("prioritylevelconfigurations").Body([]byte(`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1",
		"kind":"PriorityLevelConfiguration","metadata":{"name":"erins"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`)).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	dangling(flowcontrolv1.ConditionFalse, "Found")
	raw, err := fc.Get().Resource("prioritylevelconfigurations").Name("erins").Do(ctx).Raw()
	if err != nil {
		t.Fatal(err)
	}
	var pl flowcontrolv1.PriorityLevelConfiguration
	if err := json.Unmarshal(raw, &pl); err != nil {
		t.Fatal(err)
	}
	eventually(t, "erin classified into her level", func() error {
		if got := erin.do(t, http.MethodGet, "/apis", "").header.Get("X-Kubernetes-PF-PriorityLevel-UID"); got != string(pl.UID) {
			return fmt.Errorf("priority level %q, want %q", got, pl.UID)
		}
		return nil
	})
}

func ptrTo[T any](v T) *T { return &v }

// raw is an HTTP client of one identity that sees every answer as it is
// (client retries on 429 would hide the shedding).
type raw struct {
	host string
	hc   *http.Client
}

type answer struct {
	code   int
	header http.Header
	body   string
}

func rawClient(t *testing.T, rc *rest.Config) *raw {
	t.Helper()
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	return &raw{host: rc.Host, hc: hc}
}

// do sends one request; code 0 when it could not be sent.
func (r *raw) do(t *testing.T, method, path, body string) answer {
	req, err := http.NewRequest(method, r.host+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return answer{}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return answer{}
	}
	defer func() { _ = resp.Body.Close() }()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return answer{code: resp.StatusCode, header: resp.Header, body: b.String()}
}

// scrape reads the server's /metrics as the admin.
func scrape(t *testing.T, rc *rest.Config) promtext.Scrape {
	t.Helper()
	resp := rawClient(t, rc).do(t, http.MethodGet, "/metrics", "")
	if resp.code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", resp.code)
	}
	out, err := promtext.Parse(strings.NewReader(resp.body))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
