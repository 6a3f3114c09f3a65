package restmapper

import (
	"context"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// testMapper serves a core and an apps group, the way kubecore's discovery
// describes them.
func testMapper() *Mapper {
	groups := []metav1.APIGroup{
		{Name: "", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}},
	}
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Categories: []string{"all"}},
			{Name: "pods/log", Kind: "Pod", Namespaced: true},
			{Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
			{Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
		}},
	}
	return NewFromLists(groups, lists)
}

func TestResourceFor(t *testing.T) {
	m := testMapper()
	tests := []struct {
		arg        string
		want       string // group/version/resource
		namespaced bool
		wantErr    string
	}{
		{arg: "pods", want: "/v1, Resource=pods", namespaced: true},
		{arg: "pod", want: "/v1, Resource=pods", namespaced: true},
		{arg: "po", want: "/v1, Resource=pods", namespaced: true},
		{arg: "Pod", want: "/v1, Resource=pods", namespaced: true},
		{arg: "deploy", want: "apps/v1, Resource=deployments", namespaced: true},
		{arg: "deployments.apps", want: "apps/v1, Resource=deployments", namespaced: true},
		{arg: "deployment.v1.apps", want: "apps/v1, Resource=deployments", namespaced: true},
		{arg: "nodes", want: "/v1, Resource=nodes"},
		{arg: "podz", wantErr: `the server doesn't have a resource type "podz"`},
		{arg: "pods.apps", wantErr: `the server doesn't have a resource type "pods.apps"`},
		{arg: "pods/log", wantErr: `the server doesn't have a resource type "pods/log"`},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			got, err := m.ResourceFor(context.Background(), tt.arg)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Resource.String() != tt.want || got.Namespaced != tt.namespaced {
				t.Errorf("got %s namespaced=%v, want %s namespaced=%v", got.Resource, got.Namespaced, tt.want, tt.namespaced)
			}
		})
	}
}

func TestExpandCategoryAndKind(t *testing.T) {
	m := testMapper()
	ctx := context.Background()
	all, ok, err := m.ExpandCategory(ctx, "all")
	if err != nil || !ok || len(all) != 2 || all[0].Resource.Resource != "pods" || all[1].KindName() != "deployment.apps" {
		t.Errorf("all = %v %v %v", all, ok, err)
	}
	if _, ok, _ := m.ExpandCategory(ctx, "pods"); ok {
		t.Error("pods is not a category")
	}
	got, err := m.KindFor(ctx, all[1].Kind)
	if err != nil || got.Resource.Resource != "deployments" {
		t.Errorf("KindFor = %v, %v", got, err)
	}
	all[1].Kind.Version = "v2"
	if _, err := m.KindFor(ctx, all[1].Kind); err == nil || err.Error() != `no matches for kind "Deployment" in version "apps/v2"` {
		t.Errorf("err = %v", err)
	}
}
