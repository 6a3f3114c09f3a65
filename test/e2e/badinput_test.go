package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestBadInput sends what the server must refuse, through kubectl's usual
// verbs and, for bodies kubectl would never produce, its --raw mode. Each
// gets a clear error and a non-zero exit, and nothing stored changes.
func TestBadInput(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "bad-input")
	k.MustRun(t, "create", "configmap", "keep", "-n", ns, "--from-literal=a=b")
	rv := k.MustRun(t, "get", "cm", "keep", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
	path := "/api/v1/namespaces/" + ns + "/configmaps"

	cases := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{{
		name:  "malformed YAML",
		stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n",
		args:  []string{"create", "-f", "-"},
		want:  []string{"error: error parsing STDIN", "yaml: line"},
	}, {
		name: "invalid name",
		args: []string{"create", "configmap", "Bad_Name", "-n", ns},
		want: []string{`ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`},
	}, {
		name:  "invalid name in a manifest",
		stdin: fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: -dash-\n  namespace: %s\n", ns),
		args:  []string{"create", "-f", "-"},
		want:  []string{`The ConfigMap "-dash-" is invalid: metadata.name: Invalid value: "-dash-"`},
	}, {
		name:  "too long label value",
		stdin: fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n  namespace: %s\n  labels:\n    env: %s\n", ns, strings.Repeat("x", 64)),
		args:  []string{"create", "-f", "-"},
		want:  []string{`The ConfigMap "labelled" is invalid: metadata.labels: Invalid value: "` + strings.Repeat("x", 64) + `": must be no more than 63 characters`},
	}, {
		name:  "pod without containers",
		stdin: fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: empty\n  namespace: %s\nspec:\n  containers: []\n", ns),
		args:  []string{"create", "-f", "-"},
		want:  []string{`The Pod "empty" is invalid: spec.containers: Required value`},
	}, {
		name:  "container without image",
		stdin: fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: noimage\n  namespace: %s\nspec:\n  containers:\n  - name: c\n", ns),
		args:  []string{"create", "-f", "-"},
		want:  []string{`The Pod "noimage" is invalid: spec.containers[0].image: Required value`},
	}, {
		name: "missing namespace",
		args: []string{"create", "configmap", "x", "-n", "no-such-namespace"},
		want: []string{`namespaces "no-such-namespace" not found`},
	}, {
		name: "already exists",
		args: []string{"create", "configmap", "keep", "-n", ns},
		want: []string{`configmaps "keep" already exists`},
	}, {
		name: "unknown resource type",
		args: []string{"get", "widgets"},
		want: []string{`error: the server doesn't have a resource type "widgets"`},
	}, {
		name:  "malformed JSON body",
		stdin: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"`,
		args:  []string{"create", "--raw", path, "-f", "-"},
		want:  []string{"Error from server (BadRequest)"},
	}, {
		name:  "wrong kind for the path",
		stdin: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`,
		args:  []string{"create", "--raw", path, "-f", "-"},
		want:  []string{"Error from server (BadRequest)", "Secret"},
	}, {
		name:  "namespace disagreeing with the path",
		stdin: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"elsewhere"}}`,
		args:  []string{"create", "--raw", path, "-f", "-"},
		want:  []string{"Error from server (BadRequest): the namespace of the provided object does not match the namespace sent on the request"},
	}, {
		name:  "duplicate field",
		stdin: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1","a":"2"}}`,
		args:  []string{"create", "--raw", path + "?fieldValidation=Strict", "-f", "-"},
		want:  []string{"Error from server (BadRequest)", `duplicate field "data.a"`},
	}, {
		name:  "oversize body",
		stdin: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"a":"` + strings.Repeat("x", 3<<20) + `"}}`,
		args:  []string{"create", "--raw", path, "-f", "-"},
		want:  []string{"Error from server (RequestEntityTooLarge)"},
	}, {
		name: "bad label selector",
		args: []string{"get", "--raw", path + "?labelSelector=a%20in"},
		want: []string{"Error from server (BadRequest): unable to parse requirement: found ''"},
	}, {
		name: "unsupported field selector",
		args: []string{"get", "--raw", path + "?fieldSelector=spec.nothing%3Dx"},
		want: []string{"Error from server (BadRequest)", "field label not supported: spec.nothing"},
	}, {
		name: "bad resourceVersion",
		args: []string{"get", "--raw", path + "?resourceVersion=abc"},
		want: []string{"Error from server (BadRequest)"},
	}, {
		name: "bad patch",
		args: []string{"patch", "cm", "keep", "-n", ns, "--type=merge", "-p", `{"data":`},
		want: []string{"Error from server (BadRequest)"},
	}, {
		name: "bad JSON patch operation",
		args: []string{"patch", "cm", "keep", "-n", ns, "--type=json", "-p", `[{"op":"frobnicate","path":"/data/a"}]`},
		want: []string{"frobnicate"},
	}}
	for _, c := range cases {
		r := k.RunStdin(t, c.stdin, c.args...)
		if r.ExitCode == 0 {
			t.Errorf("%s: kubectl succeeded: %s", c.name, r)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, r.Stderr, w)
			}
		}
	}

	if out := k.MustRun(t, "get", "cm", "-n", ns, "-o", "name"); out != "configmap/keep\n" {
		t.Errorf("after bad input the namespace holds %q", out)
	}
	if got := k.MustRun(t, "get", "cm", "keep", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}"); got != rv {
		t.Errorf("bad input moved resourceVersion %s to %s", rv, got)
	}
	if r := k.Run(t, "get", "pods", "-n", ns); r.Stdout != "" {
		t.Errorf("invalid pods were stored: %s", r)
	}
}
