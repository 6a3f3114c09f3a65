package match

import (
	"testing"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/flowcontrol/bootstrap"
)

// TestClassifyBootstrap: requests land in the schemas Kubernetes' default
// configuration gives them.
func TestClassifyBootstrap(t *testing.T) {
	schemas := append(bootstrap.MandatoryFlowSchemas(), bootstrap.SuggestedFlowSchemas()...)
	res := func(verb, group, resource, ns string) *apirequest.RequestInfo {
		return &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Namespace: ns}
	}
	authed := func(name string, groups ...string) *apirequest.UserInfo {
		return &apirequest.UserInfo{Name: name, Groups: append(groups, "system:authenticated")}
	}
	for _, tc := range []struct {
		name string
		user *apirequest.UserInfo
		info *apirequest.RequestInfo
		want string
	}{
		{"admin", authed("admin", "system:masters"), res("list", "", "pods", "default"), "exempt"},
		{"probe", &apirequest.UserInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, &apirequest.RequestInfo{Verb: "get", Path: "/readyz"}, "probes"},
		{"scheduler lease", authed("system:kube-scheduler"), res("update", "coordination.k8s.io", "leases", "kube-system"), "system-leader-election"},
		{"scheduler pods", authed("system:kube-scheduler"), res("list", "", "pods", ""), "kube-scheduler"},
		{"node status", authed("system:node:n1", "system:nodes"), res("patch", "", "nodes", ""), "system-node-high"},
		{"node pods", authed("system:node:n1", "system:nodes"), res("list", "", "pods", ""), "system-nodes"},
		{"kube-system sa", authed("system:serviceaccount:kube-system:coredns", "system:serviceaccounts"), res("list", "", "services", ""), "kube-system-service-accounts"},
		{"other sa", authed("system:serviceaccount:app:robot", "system:serviceaccounts"), res("get", "", "configmaps", "app"), "service-accounts"},
		{"user", authed("alice"), res("create", "apps", "deployments", "default"), "global-default"},
		{"user discovery", authed("alice"), &apirequest.RequestInfo{Verb: "get", Path: "/apis"}, "global-default"},
	} {
		fs := Classify(schemas, tc.user, tc.info)
		if fs == nil || fs.Name != tc.want {
			got := "<none>"
			if fs != nil {
				got = fs.Name
			}
			t.Errorf("%s: classified as %s, want %s", tc.name, got, tc.want)
		}
	}
	// Without the catch-all nothing matches an unknown user's request
	// outside every rule.
	only := []*flowcontrolv1.FlowSchema{bootstrap.MandatoryFlowSchemas()[0]}
	if fs := Classify(only, authed("bob"), res("get", "", "pods", "x")); fs != nil {
		t.Errorf("bob classified as %s", fs.Name)
	}
}
