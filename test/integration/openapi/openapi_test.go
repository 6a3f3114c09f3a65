// Package openapi checks the served OpenAPI documents with the stock
// kubectl: apply with strict validation, unknown fields, explain.
package openapi

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	apiservercmd "kubecore.io/kubecore/cmd/kubecore/app/apiserver"
)

const kubectlPath = "/usr/bin/kubectl"

// startServer runs `kubecore apiserver` in-process on a free port and
// returns its admin kubeconfig; the server stops when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	o := apiservercmd.NewOptions()
	o.DataDir = t.TempDir()
	o.SecurePort = 0
	c, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := c.Ready()
	done := make(chan error, 1)
	go func() {
		done <- c.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("apiserver: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("apiserver exited: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("apiserver not ready after 60s")
	}
	return filepath.Join(o.DataDir, "admin.kubeconfig")
}

type kubectl struct {
	t          *testing.T
	kubeconfig string
	cacheDir   string
}

// run runs kubectl with args and stdin, returning stdout, stderr and
// whether it succeeded.
func (k kubectl) run(stdin []byte, args ...string) (string, string, bool) {
	k.t.Helper()
	args = append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err == nil
}

// manifest reads a fixture and drops what the server sets (uid,
// resourceVersion, creationTimestamp, generation, status), leaving what a
// user would apply.
func manifest(t *testing.T, name string) ([]byte, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	delete(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "generateName"} {
			delete(md, f)
		}
	}
	return encode(t, obj), obj
}

func encode(t *testing.T, obj map[string]any) []byte {
	t.Helper()
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestKubectl(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("needs the stock kubectl at %s: %v", kubectlPath, err)
	}
	k := kubectl{t: t, kubeconfig: startServer(t), cacheDir: t.TempDir()}
	// The pod fixture names a PriorityClass and a RuntimeClass, which
	// admission resolves.
	setup := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n" +
		"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: shop-critical\nvalue: 100000\n---\n" +
		"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: runc\nhandler: runc\noverhead:\n  podFixed:\n    cpu: 10m\n    memory: 16Mi\n"
	if out, errOut, ok := k.run([]byte(setup), "apply", "-f", "-"); !ok {
		t.Fatalf("apply namespace, priority and runtime class: %s%s", out, errOut)
	}

	fixtures := []string{"deployment.yaml", "deployment-recreate.yaml", "replicaset.yaml", "configmap.yaml", "secret.yaml", "lease.yaml", "pod.yaml"}
	for _, name := range fixtures {
		t.Run("apply "+name, func(t *testing.T) {
			data, obj := manifest(t, name)
			kind := strings.ToLower(obj["kind"].(string))
			md := obj["metadata"].(map[string]any)
			// Verbose output shows which OpenAPI documents kubectl read.
			out, errOut, ok := k.run(data, "apply", "-f", "-", "-v=6")
			if !ok || !strings.Contains(out, "/"+md["name"].(string)+" created") {
				t.Fatalf("first apply: ok=%v\n%s%s", ok, out, errOut)
			}
			if !strings.Contains(errOut, "fieldValidation=Strict") {
				t.Errorf("kubectl did not ask for strict server-side validation:\n%s", errOut)
			}
			if strings.Contains(errOut, "/openapi/v2") {
				t.Errorf("kubectl fell back to OpenAPI v2:\n%s", errOut)
			}
			if out, errOut, ok := k.run(data, "apply", "-f", "-"); !ok || !strings.Contains(out, " unchanged") {
				t.Fatalf("second apply of a %s: ok=%v\n%s%s", kind, ok, out, errOut)
			}
		})
	}

	t.Run("configured", func(t *testing.T) {
		data, _ := manifest(t, "deployment.yaml")
		changed := bytes.Replace(data, []byte("replicas: 4"), []byte("replicas: 7"), 1)
		if bytes.Equal(changed, data) {
			t.Fatal("fixture deployment.yaml no longer has replicas: 4")
		}
		out, errOut, ok := k.run(changed, "apply", "-f", "-")
		if !ok || !strings.Contains(out, "deployment.apps/storefront configured") || strings.Contains(errOut, "warning") {
			t.Fatalf("apply: ok=%v\n%s%s", ok, out, errOut)
		}
		got, errOut, ok := k.run(nil, "get", "deployment", "storefront", "-n", "shop", "-o", "jsonpath={.spec.replicas}")
		if !ok || got != "7" {
			t.Errorf("replicas after apply = %q (%s)", got, errOut)
		}
	})

	t.Run("create", func(t *testing.T) {
		_, obj := manifest(t, "configmap.yaml")
		obj["metadata"].(map[string]any)["name"] = "created-by-create"
		data := encode(t, obj)
		out, errOut, ok := k.run(data, "create", "-f", "-", "-v=6")
		if !ok || !strings.Contains(out, " created") || !strings.Contains(errOut, "fieldValidation=Strict") {
			t.Fatalf("create: ok=%v\n%s%s", ok, out, errOut)
		}
	})

	t.Run("unknown field", func(t *testing.T) {
		cases := []struct {
			name  string
			edit  func(obj map[string]any)
			field string
		}{
			{"spec", func(obj map[string]any) {
				obj["spec"].(map[string]any)["bogusField"] = 1
			}, `unknown field "spec.bogusField"`},
			{"container", func(obj map[string]any) {
				pod := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
				pod["containers"].([]any)[0].(map[string]any)["imageTypo"] = "x"
			}, `unknown field "spec.template.spec.containers[0].imageTypo"`},
		}
		for _, c := range cases {
			_, obj := manifest(t, "deployment-recreate.yaml")
			c.edit(obj)
			bad := encode(t, obj)
			for _, verb := range []string{"apply", "create"} {
				out, errOut, ok := k.run(bad, verb, "-f", "-")
				if ok || !strings.Contains(errOut, c.field) || !strings.Contains(errOut, "strict decoding error") {
					t.Errorf("%s %s: ok=%v, want an error naming %s\n%s%s", verb, c.name, ok, c.field, out, errOut)
				}
			}
		}
	})

	explains := []struct {
		field string
		want  []string
	}{
		{"deployment.spec.strategy", []string{"KIND:       Deployment", "FIELD: strategy <DeploymentStrategy>", "How existing pods are replaced by new ones.", "rollingUpdate\t<RollingUpdateDeployment>", "type\t<string>"}},
		{"pods.spec.containers", []string{"KIND:       Pod", "FIELD: containers <[]Container>", "image\t<string>", "Image is the container image reference.", "name\t<string> -required-"}},
		{"leases.spec", []string{"KIND:       Lease", "GROUP:      coordination.k8s.io"}},
		{"poddisruptionbudgets.spec", []string{"KIND:       PodDisruptionBudget", "GROUP:      policy"}},
		{"priorityclasses", []string{"KIND:       PriorityClass", "GROUP:      scheduling.k8s.io"}},
		{"services.spec.ports", []string{"KIND:       Service", "FIELD: ports <[]ServicePort>"}},
		{"deployment.spec.strategy.rollingUpdate.maxSurge", []string{"FIELD: maxSurge <string>", "IntOrString holds an int32 or a string."}},
	}
	for _, c := range explains {
		t.Run("explain "+c.field, func(t *testing.T) {
			out, errOut, ok := k.run(nil, "explain", c.field)
			if !ok {
				t.Fatalf("explain: %s%s", out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("explain %s lacks %q:\n%s", c.field, w, out)
				}
			}
		})
	}
}
