package apiextensions

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	k8sapidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	k8smetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	k8sdiscovery "k8s.io/client-go/discovery"
	k8sclientcmd "k8s.io/client-go/tools/clientcmd"
)

const acceptV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// discoveryV2 GETs /apis in the aggregated form (If-None-Match etag when
// set) and decodes it with Kubernetes' own types.
func (s *server) discoveryV2(etag string) (response, k8sapidiscoveryv2.APIGroupDiscoveryList) {
	s.t.Helper()
	header := []string{"Accept", acceptV2 + ",application/json"}
	if etag != "" {
		header = append(header, "If-None-Match", etag)
	}
	r := s.do(http.MethodGet, "/apis", nil, header...)
	var doc k8sapidiscoveryv2.APIGroupDiscoveryList
	if r.code == http.StatusOK {
		if ct := r.header.Get("Content-Type"); ct != acceptV2 {
			s.t.Fatalf("GET /apis aggregated: Content-Type %q", ct)
		}
		if err := json.Unmarshal(r.body, &doc); err != nil {
			s.t.Fatal(err)
		}
	}
	return r, doc
}

func findResource(doc k8sapidiscoveryv2.APIGroupDiscoveryList, group, version, resource string) *k8sapidiscoveryv2.APIResourceDiscovery {
	for _, g := range doc.Items {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != version {
				continue
			}
			for i := range v.Resources {
				if v.Resources[i].Resource == resource {
					return &v.Resources[i]
				}
			}
		}
	}
	return nil
}

// TestAggregatedDiscoveryFollowsCRDs: a CRD's served versions appear in
// the aggregated discovery document as Kubernetes lists them, the ETag
// changes with them (304 while it does not), and they leave with it.
func TestAggregatedDiscoveryFollowsCRDs(t *testing.T) {
	s := startServer(t)
	r, doc := s.discoveryV2("")
	if r.code != http.StatusOK {
		t.Fatalf("GET /apis aggregated: %d %s", r.code, r.body)
	}
	etag := r.header.Get("ETag")
	if r.header.Get("Vary") != "Accept" || etag == "" {
		t.Errorf("headers %v", r.header)
	}
	if findResource(doc, "apps", "v1", "deployments") == nil || findResource(doc, "apiextensions.k8s.io", "v1", "customresourcedefinitions") == nil {
		t.Fatalf("built-in resources missing: %s", r.body)
	}
	if r := s.do(http.MethodGet, "/apis", nil, "Accept", acceptV2, "If-None-Match", etag); r.code != http.StatusNotModified || len(r.body) != 0 {
		t.Errorf("If-None-Match the current ETag: %d %q", r.code, r.body)
	}

	const group = "discov2.example.com"
	s.createCRD(crontabCRD(group))
	var ct *k8sapidiscoveryv2.APIResourceDiscovery
	eventually(t, "crontabs in the aggregated document", func() (bool, string) {
		r, doc = s.discoveryV2(etag)
		ct = findResource(doc, group, "v1", "crontabs")
		return ct != nil && findResource(doc, group, "v1beta1", "crontabs") != nil, string(r.body)
	})
	withCRD := r.header.Get("ETag")
	if withCRD == etag {
		t.Errorf("the ETag did not change with a CRD")
	}
	want := k8sapidiscoveryv2.APIResourceDiscovery{
		Resource:         "crontabs",
		ResponseKind:     &k8smetav1.GroupVersionKind{Group: group, Version: "v1", Kind: "CronTab"},
		Scope:            k8sapidiscoveryv2.ScopeNamespace,
		SingularResource: "crontab",
		Verbs:            []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		ShortNames:       []string{"ct"},
		Categories:       nil,
		Subresources: []k8sapidiscoveryv2.APISubresourceDiscovery{
			{Subresource: "scale", ResponseKind: &k8smetav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}},
			{Subresource: "status", ResponseKind: &k8smetav1.GroupVersionKind{Group: group, Version: "v1", Kind: "CronTab"}, Verbs: []string{"get", "patch", "update"}},
		},
	}
	got := *ct
	slices.Sort(got.Verbs)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("crontabs entry\n got %s\nwant %s", g, w)
	}
	for _, g := range doc.Items {
		if g.Name == group {
			if len(g.Versions) != 2 || g.Versions[0].Version != "v1" || g.Versions[0].Freshness != k8sapidiscoveryv2.DiscoveryFreshnessCurrent {
				t.Errorf("group versions %+v, want v1 (Current) then v1beta1", g.Versions)
			}
		}
	}

	// client-go's discovery client reads the aggregated document and
	// finds what the legacy documents list.
	rc, err := k8sclientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := k8sdiscovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	groups, byGV, failed, err := dc.GroupsAndMaybeResources()
	if err != nil || len(failed) != 0 {
		t.Fatalf("aggregated discovery: %v %v", err, failed)
	}
	if byGV == nil {
		t.Fatalf("client-go did not get the aggregated document (no resources with the groups)")
	}
	legacy, err := k8sdiscovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	legacy.UseLegacyDiscovery = true
	legacyGroups, err := legacy.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(groupVersions(groups), groupVersions(legacyGroups)) {
		t.Errorf("groups differ:\naggregated %v\nlegacy     %v", groupVersions(groups), groupVersions(legacyGroups))
	}
	for _, g := range legacyGroups.Groups {
		for _, v := range g.Versions {
			list, err := legacy.ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			gv, _ := k8sschema.ParseGroupVersion(v.GroupVersion)
			agg := byGV[gv]
			if agg == nil {
				t.Errorf("%s: not in the aggregated document", gv)
				continue
			}
			if a, l := resourceSummary(agg.APIResources, gv), resourceSummary(list.APIResources, gv); !reflect.DeepEqual(a, l) {
				t.Errorf("%s differs:\naggregated %v\nlegacy     %v", gv, a, l)
			}
		}
	}

	s.deleteCRD("crontabs." + group)
	eventually(t, "crontabs gone from the aggregated document", func() (bool, string) {
		r, doc = s.discoveryV2("")
		for _, g := range doc.Items {
			if g.Name == group {
				return false, string(r.body)
			}
		}
		return true, ""
	})
	// (Other tests' definitions share the etcd: the ETag need not be the
	// first one again, only not the one that listed the CRD.)
	if r.header.Get("ETag") == withCRD {
		t.Errorf("the ETag did not change when the CRD left")
	}
}

func groupVersions(l *k8smetav1.APIGroupList) []string {
	var out []string
	for _, g := range l.Groups {
		for _, v := range g.Versions {
			out = append(out, v.GroupVersion)
		}
		out = append(out, "preferred="+g.PreferredVersion.GroupVersion)
	}
	return out
}

// resourceSummary is what discovery says of each resource, the kind's
// group version made explicit (the aggregated form leaves it out when it
// is the group version's, and client-go keeps it as it came).
func resourceSummary(list []k8smetav1.APIResource, gv k8sschema.GroupVersion) []string {
	var out []string
	for _, r := range list {
		g, v := r.Group, r.Version
		if g == "" && v == "" {
			g, v = gv.Group, gv.Version
		}
		singular := r.SingularName
		if strings.Contains(r.Name, "/") {
			singular = "" // client-go gives a subresource its parent's
		}
		verbs := slices.Clone([]string(r.Verbs))
		slices.Sort(verbs)
		out = append(out, r.Name+" "+g+"/"+v+" "+r.Kind+" "+singular+" "+
			boolString(r.Namespaced)+" "+k8sjoin(verbs)+" "+k8sjoin(r.ShortNames)+" "+k8sjoin(r.Categories))
	}
	slices.Sort(out)
	return out
}

func boolString(b bool) string {
	if b {
		return "namespaced"
	}
	return "cluster"
}

func k8sjoin(s []string) string { return "[" + strings.Join(s, ",") + "]" }
