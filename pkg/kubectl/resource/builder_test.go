package resource

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

func testMapper() *restmapper.Mapper {
	gv := func(g, v string) metav1.GroupVersionForDiscovery {
		if g == "" {
			return metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v}
		}
		return metav1.GroupVersionForDiscovery{GroupVersion: g + "/" + v, Version: v}
	}
	groups := []metav1.APIGroup{
		{Name: "", Versions: []metav1.GroupVersionForDiscovery{gv("", "v1")}, PreferredVersion: gv("", "v1")},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{gv("apps", "v1")}, PreferredVersion: gv("apps", "v1")},
	}
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Categories: []string{"all"}},
			{Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
		}},
	}
	return restmapper.NewFromLists(groups, lists)
}

// describe prints infos as "resource ns/name" for comparison.
func describe(infos []*Info) string {
	var parts []string
	for _, i := range infos {
		parts = append(parts, i.Mapping.Resource.Resource+" "+i.Namespace+"/"+i.Name)
	}
	return strings.Join(parts, ", ")
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		all          bool
		allNS        bool
		requireNames bool
		want         string
		single       bool
		wantErr      string
	}{
		{name: "type", args: []string{"pods"}, want: "pods ns1/"},
		{name: "type name", args: []string{"po", "a"}, want: "pods ns1/a", single: true},
		{name: "type names", args: []string{"cm", "a", "b"}, want: "configmaps ns1/a, configmaps ns1/b"},
		{name: "types", args: []string{"cm,deploy"}, want: "configmaps ns1/, deployments ns1/"},
		{name: "types and name", args: []string{"cm,deploy", "x"}, want: "configmaps ns1/x, deployments ns1/x"},
		{name: "category", args: []string{"all"}, want: "pods ns1/, deployments ns1/"},
		{name: "category and type deduplicated", args: []string{"all,pods"}, want: "pods ns1/, deployments ns1/"},
		{name: "slash", args: []string{"cm/a", "deployments.apps/b"}, want: "configmaps ns1/a, deployments ns1/b"},
		{name: "one slash", args: []string{"cm/a"}, want: "configmaps ns1/a", single: true},
		{name: "cluster scoped", args: []string{"ns", "kube-system"}, want: "namespaces /kube-system", single: true},
		{name: "all namespaces", args: []string{"cm"}, allNS: true, want: "configmaps /"},
		{name: "mixed forms", args: []string{"cm/a", "cm"}, wantErr: "there is no need to specify a resource type as a separate argument"},
		{name: "empty name", args: []string{"cm/"}, wantErr: "arguments in resource/name form must have a single resource and name"},
		{name: "unknown", args: []string{"podz"}, wantErr: `the server doesn't have a resource type "podz"`},
		{name: "names required", args: []string{"cm"}, requireNames: true, wantErr: "resource(s) were provided, but no name was specified"},
		{name: "names required with --all", args: []string{"cm"}, requireNames: true, all: true, want: "configmaps ns1/"},
		{name: "nothing", args: nil, wantErr: "You must provide one or more resources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(testMapper(), nil, nil).DefaultNamespace("ns1", false).
				Args(tt.args...).SelectAll(tt.all).AllNamespaces(tt.allNS)
			if tt.requireNames {
				b.RequireNames()
			}
			r, err := b.Do(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(r.Infos); got != tt.want || r.SingleItem != tt.single {
				t.Errorf("got %q single=%v, want %q single=%v", got, r.SingleItem, tt.want, tt.single)
			}
		})
	}
}

func TestFilenames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	multi := write("multi.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: other}\n")
	list := write("list.json", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l1"}},{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n1"}}]}`)
	write("tree/top.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: top}\n")
	write("tree/sub/deep.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\n")
	write("tree/notes.txt", "not a manifest")
	bad := write("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n")
	unknown := write("unknown.yaml", "apiVersion: v1\nkind: Widget\nmetadata: {name: w}\n")
	tree := filepath.Join(dir, "tree")

	tests := []struct {
		name      string
		files     FilenameOptions
		stdin     string
		explicit  bool
		want      string
		wantErr   string
		wantInErr string
	}{
		{name: "multi-document", files: FilenameOptions{Filenames: []string{multi}}, want: "configmaps ns1/a, deployments other/d"},
		{name: "list", files: FilenameOptions{Filenames: []string{list}}, want: "configmaps ns1/l1, namespaces /n1"},
		{name: "directory", files: FilenameOptions{Filenames: []string{tree}}, want: "configmaps ns1/top"},
		{name: "recursive", files: FilenameOptions{Filenames: []string{tree}, Recursive: true}, want: "configmaps ns1/deep, configmaps ns1/top"},
		{name: "stdin", files: FilenameOptions{Filenames: []string{"-"}}, stdin: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"}}`, want: "configmaps ns1/s"},
		{name: "namespace mismatch", files: FilenameOptions{Filenames: []string{multi}}, explicit: true,
			wantErr: `the namespace from the provided object "other" does not match the namespace "ns1". You must pass '--namespace=other' to perform this operation.`},
		{name: "missing file", files: FilenameOptions{Filenames: []string{filepath.Join(dir, "none.yaml")}}, wantInErr: "does not exist"},
		{name: "syntax error names the file", files: FilenameOptions{Filenames: []string{bad}}, wantInErr: "error parsing " + bad},
		{name: "unknown kind", files: FilenameOptions{Filenames: []string{unknown}}, wantInErr: `no matches for kind "Widget" in version "v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewBuilder(testMapper(), nil, strings.NewReader(tt.stdin)).
				DefaultNamespace("ns1", tt.explicit).Filenames(tt.files).Do(context.Background())
			switch {
			case tt.wantErr != "" || tt.wantInErr != "":
				if err == nil || (tt.wantErr != "" && err.Error() != tt.wantErr) || !strings.Contains(err.Error(), tt.wantInErr) {
					t.Errorf("err = %v, want %s%s", err, tt.wantErr, tt.wantInErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := describe(r.Infos); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
