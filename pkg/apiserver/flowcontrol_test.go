package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// staticFlowConfig is a FlowConfigSource that never changes; the tests
// configure the server's controller themselves.
type staticFlowConfig struct{}

func (staticFlowConfig) RunFlowConfig(ctx context.Context, _ func([]*flowcontrolv1.FlowSchema, []*flowcontrolv1.PriorityLevelConfiguration)) error {
	<-ctx.Done()
	return nil
}

var _ FlowConfigSource = staticFlowConfig{}

func int32p(v int32) *int32 { return &v }

// TestPriorityAndFairnessFilter: with one seat, a request of the
// "devs" level beyond it gets 429 with Retry-After: 1 and Kubernetes'
// message, with the X-Kubernetes-PF-* headers; system:masters (exempt)
// and watches are served meanwhile; the in-flight limits no longer apply.
func TestPriorityAndFairnessFilter(t *testing.T) {
	cfg := Config{
		Scheme:        newTestScheme(),
		Groups:        []APIGroupInfo{{GroupVersion: testGV, Storage: map[string]rest.Storage{"widgets": newMemStore()}}},
		Authenticator: headerAuth{},
		Authorizer:    allowAll{},
		FlowConfig:    staticFlowConfig{},
		// Two seats, one of them devs' (the exempt level's share joins the
		// sum); the in-flight limits would allow more.
		MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1,
	}
	cc, err := cfg.Complete()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cc)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)

	everything := []flowcontrolv1.PolicyRulesWithSubjects{{
		Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "*"}}},
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true}},
	}}
	masters := []flowcontrolv1.PolicyRulesWithSubjects{{
		Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "system:masters"}}},
		ResourceRules: everything[0].ResourceRules,
	}}
	s.flow.Configure([]*flowcontrolv1.FlowSchema{
		{ObjectMeta: metav1.ObjectMeta{Name: "exempt", UID: "fs-exempt"}, Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "exempt"}, MatchingPrecedence: 1, Rules: masters}},
		{ObjectMeta: metav1.ObjectMeta{Name: "devs", UID: "fs-devs"}, Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "devs"}, MatchingPrecedence: 100, Rules: everything}},
	}, []*flowcontrolv1.PriorityLevelConfiguration{
		{ObjectMeta: metav1.ObjectMeta{Name: "exempt", UID: "pl-exempt"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: int32p(1)}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "devs", UID: "pl-devs"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: int32p(1), LendablePercent: int32p(0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}},
	})

	get := func(user, group, path string) (*http.Response, string) {
		return getAs(t, ts, user, group, path)
	}
	var wg sync.WaitGroup
	wg.Go(func() { get("alice", "devs", widgetsPath+"/slow") })
	for {
		if st, _ := s.flow.LevelStats("devs"); st.Executing == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	resp, body := get("bob", "devs", widgetsPath+"/x")
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("beyond the level's seat: %v %s, want 429 with Retry-After: 1", resp, body)
	}
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Reason != metav1.StatusReasonTooManyRequests || st.Message != "Too many requests, please try again later." {
		t.Errorf("body %s is not Kubernetes' TooManyRequests Status", body)
	}
	if fs, pl := resp.Header.Get(headerFlowSchemaUID), resp.Header.Get(headerPriorityLevelUID); fs != "fs-devs" || pl != "pl-devs" {
		t.Errorf("headers %q %q, want fs-devs pl-devs", fs, pl)
	}
	if resp, body := get("admin", "system:masters", widgetsPath+"/x"); resp == nil || resp.StatusCode != http.StatusNotFound || resp.Header.Get(headerPriorityLevelUID) != "pl-exempt" {
		t.Errorf("system:masters while the seat is taken: %v %s, want 404 from the exempt level", resp, body)
	}
	// A watch takes no seat.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+widgetsPath+"?watch=true&timeoutSeconds=5", nil)
	req.Header.Set("X-Test-User", "carol")
	req.Header.Set("X-Test-Group", "devs")
	wresp, err := http.DefaultClient.Do(req)
	if err != nil || wresp.StatusCode != http.StatusOK {
		t.Errorf("watch while the seat is taken: %v %v, want 200", wresp, err)
	}
	if wresp != nil {
		_ = wresp.Body.Close()
	}
	cancel()
	wg.Wait()
	if resp, body := get("bob", "devs", widgetsPath+"/x"); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the seat is free: %v %s, want 404", resp, body)
	}
}
