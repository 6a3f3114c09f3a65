package schema

import (
	"testing"
)

func TestParseGroupVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    GroupVersion
		wantErr bool
	}{
		{in: "", want: GroupVersion{}},
		{in: "/", want: GroupVersion{}},
		{in: "v1", want: GroupVersion{Version: "v1"}},
		{in: "apps/v1", want: GroupVersion{Group: "apps", Version: "v1"}},
		{in: "rbac.authorization.k8s.io/v1", want: GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}},
		{in: "apps/v1/extra", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseGroupVersion(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseGroupVersion(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseGroupVersion(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
		if !tt.wantErr && tt.in != "/" && got.String() != tt.in {
			t.Errorf("ParseGroupVersion(%q).String() = %q, want the input back", tt.in, got.String())
		}
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"core gv", GroupVersion{Version: "v1"}.String(), "v1"},
		{"apps gv", GroupVersion{Group: "apps", Version: "v1"}.String(), "apps/v1"},
		{"apps gvk", GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}.String(), "apps/v1, Kind=Deployment"},
		{"core gvk", GroupVersionKind{Version: "v1", Kind: "Pod"}.String(), "/v1, Kind=Pod"},
		{"apps gvr", GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}.String(), "apps/v1, Resource=deployments"},
		{"apps gr", GroupResource{Group: "apps", Resource: "deployments"}.String(), "deployments.apps"},
		{"core gr", GroupResource{Resource: "pods"}.String(), "pods"},
		{"apps gk", GroupKind{Group: "apps", Kind: "Deployment"}.String(), "Deployment.apps"},
		{"core gk", GroupKind{Kind: "Pod"}.String(), "Pod"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestAPIVersionAndKind(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             GroupVersionKind
		wantAPIVersion   string
	}{
		{"v1", "Pod", GroupVersionKind{Version: "v1", Kind: "Pod"}, "v1"},
		{"apps/v1", "Deployment", GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "apps/v1"},
		{"a/b/c", "Thing", GroupVersionKind{Kind: "Thing"}, ""},
		{"", "", GroupVersionKind{}, ""},
	}
	for _, tt := range tests {
		got := FromAPIVersionAndKind(tt.apiVersion, tt.kind)
		if got != tt.want {
			t.Errorf("FromAPIVersionAndKind(%q, %q) = %#v, want %#v", tt.apiVersion, tt.kind, got, tt.want)
		}
		av, k := got.ToAPIVersionAndKind()
		if av != tt.wantAPIVersion || k != tt.kind {
			t.Errorf("ToAPIVersionAndKind() = %q, %q, want %q, %q", av, k, tt.wantAPIVersion, tt.kind)
		}
	}
}

func TestConversions(t *testing.T) {
	gvk := GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if got := gvk.GroupKind().WithVersion("v1"); got != gvk {
		t.Errorf("GroupKind().WithVersion() = %#v, want %#v", got, gvk)
	}
	if got := gvk.GroupVersion().WithKind("Deployment"); got != gvk {
		t.Errorf("GroupVersion().WithKind() = %#v, want %#v", got, gvk)
	}
	gvr := GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if got := gvr.GroupResource().WithVersion("v1"); got != gvr {
		t.Errorf("GroupResource().WithVersion() = %#v, want %#v", got, gvr)
	}
	if got := gvr.GroupVersion().WithResource("deployments"); got != gvr {
		t.Errorf("GroupVersion().WithResource() = %#v, want %#v", got, gvr)
	}
	for _, e := range []interface{ Empty() bool }{GroupVersion{}, GroupVersionKind{}, GroupVersionResource{}, GroupResource{}, GroupKind{}} {
		if !e.Empty() {
			t.Errorf("%#v.Empty() = false", e)
		}
	}
	for _, e := range []interface{ Empty() bool }{GroupVersion{Version: "v1"}, gvk, gvr, GroupResource{Resource: "pods"}, GroupKind{Kind: "Pod"}} {
		if e.Empty() {
			t.Errorf("%#v.Empty() = true", e)
		}
	}
}

func TestParseResourceArg(t *testing.T) {
	tests := []struct {
		in      string
		wantGVR *GroupVersionResource
		wantGR  GroupResource
	}{
		{in: "pods", wantGR: GroupResource{Resource: "pods"}},
		{in: "deployments.apps", wantGR: GroupResource{Resource: "deployments", Group: "apps"}},
		{
			in:      "deployments.v1.apps",
			wantGVR: &GroupVersionResource{Resource: "deployments", Version: "v1", Group: "apps"},
			wantGR:  GroupResource{Resource: "deployments", Group: "v1.apps"},
		},
		{
			in:      "roles.v1.rbac.authorization.k8s.io",
			wantGVR: &GroupVersionResource{Resource: "roles", Version: "v1", Group: "rbac.authorization.k8s.io"},
			wantGR:  GroupResource{Resource: "roles", Group: "v1.rbac.authorization.k8s.io"},
		},
	}
	for _, tt := range tests {
		gvr, gr := ParseResourceArg(tt.in)
		if (gvr == nil) != (tt.wantGVR == nil) || (gvr != nil && *gvr != *tt.wantGVR) {
			t.Errorf("ParseResourceArg(%q) gvr = %v, want %v", tt.in, gvr, tt.wantGVR)
		}
		if gr != tt.wantGR {
			t.Errorf("ParseResourceArg(%q) gr = %#v, want %#v", tt.in, gr, tt.wantGR)
		}
	}
	gvk, gk := ParseKindArg("Deployment.v1.apps")
	if gvk == nil || *gvk != (GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("ParseKindArg gvk = %v", gvk)
	}
	if gk != (GroupKind{Group: "v1.apps", Kind: "Deployment"}) {
		t.Errorf("ParseKindArg gk = %#v", gk)
	}
	if gvk, gk := ParseKindArg("Pod"); gvk != nil || gk != (GroupKind{Kind: "Pod"}) {
		t.Errorf("ParseKindArg(Pod) = %v, %#v", gvk, gk)
	}
}

func TestEmptyObjectKind(t *testing.T) {
	EmptyObjectKind.SetGroupVersionKind(GroupVersionKind{Kind: "Pod"})
	if got := EmptyObjectKind.GroupVersionKind(); !got.Empty() {
		t.Errorf("EmptyObjectKind kept %#v", got)
	}
}
