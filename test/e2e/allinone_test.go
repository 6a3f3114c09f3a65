package e2e

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/e2e/framework"
)

// webDeployment is the documentation's nginx Deployment, with a command
// the process runtime can run.
const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: nginx:1.14.2
        command: ["sh", "-c", "echo serving; while true; do sleep 1; done"]
        ports:
        - containerPort: 80
`

// webStatefulSet is the documentation's StatefulSet with its headless
// Service and volumeClaimTemplates.
const webStatefulSet = `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx-sts
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx-sts
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx-sts
  serviceName: nginx
  replicas: 2
  template:
    metadata:
      labels:
        app: nginx-sts
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        command: ["sh", "-c", "while true; do sleep 1; done"]
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
`

// readCert returns the certificate of a pki file.
func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM block", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAllInOne is issue 9's all-in-one acceptance with the stock kubectl:
// workloads come up, authorization answers, a kubelet's certificate is
// confined to its node, and a restart keeps objects and certificates
// and renews a certificate about to expire.
func TestAllInOne(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	s := framework.StartAllInOne(t, dataDir)
	k := s.Kubectl(t)
	// The pods' processes carry the namespace in their command line, so
	// that this test can tell whether they outlive all-in-one.
	alive := func(ns string) bool { return exec.Command("pgrep", "-f", "marker="+ns).Run() == nil }

	var node string
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
		if node = strings.TrimSpace(r.Stdout); r.ExitCode != 0 || node == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})

	ns := s.CreateNamespace(t, "aio")
	k.MustRunStdin(t, strings.Replace(webDeployment, "echo serving;", "echo serving marker="+ns+";", 1), "apply", "-n", ns, "-f", "-")
	k.MustRunStdin(t, webStatefulSet, "apply", "-n", ns, "-f", "-")
	k.MustRun(t, "wait", "-n", ns, "--for=condition=Available", "deployment/nginx-deployment", "--timeout=60s")
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=nginx", "-o", "jsonpath={.items[*].status.phase}")
		if got := strings.Fields(r.Stdout); len(got) != 3 || strings.Count(r.Stdout, "Running") != 3 {
			return "deployment pods: " + r.String()
		}
		return ""
	})
	if out := k.MustRun(t, "get", "statefulset", "web", "-n", ns, "-o", "jsonpath={.spec.serviceName}"); out != "nginx" {
		t.Errorf("statefulset serviceName %q", out)
	}

	// Authorization: the admin may do anything; a service account bound
	// to view may read but not write.
	if out := strings.TrimSpace(k.MustRun(t, "auth", "can-i", "delete", "nodes")); out != "yes" {
		t.Errorf("admin can-i delete nodes: %q", out)
	}
	k.MustRun(t, "create", "serviceaccount", "viewer", "-n", ns)
	k.MustRun(t, "create", "rolebinding", "viewer-view", "-n", ns, "--clusterrole=view", "--serviceaccount="+ns+":viewer")
	sa := "--as=system:serviceaccount:" + ns + ":viewer"
	eventually(t, 10*time.Second, func() string {
		if r := k.Run(t, "auth", "can-i", "list", "pods", "-n", ns, sa); strings.TrimSpace(r.Stdout) != "yes" {
			return "viewer can-i list pods: " + r.String()
		}
		return ""
	})
	if r := k.Run(t, "auth", "can-i", "create", "pods", "-n", ns, sa); strings.TrimSpace(r.Stdout) != "no" || r.ExitCode == 0 {
		t.Errorf("viewer can-i create pods: %s", r.String())
	}
	if r := k.Run(t, "get", "secrets", "-n", ns, sa); r.ExitCode == 0 || !strings.Contains(r.Stderr, `cannot list resource "secrets"`) {
		t.Errorf("viewer listed secrets: %s", r.String())
	}

	// A kubelet's certificate may not touch another node.
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other-node.kubeconfig")
	if out, err := exec.Command(bin, "certs", "kubeconfig", "--data-dir", dataDir, "--user", "system:node:other",
		"--groups", "system:nodes", "--server", s.URL, "--out", other).CombinedOutput(); err != nil {
		t.Fatalf("certs kubeconfig: %v\n%s", err, out)
	}
	r := k.Run(t, "--kubeconfig", other, "label", "node", node, "hacked=yes")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Forbidden") || !strings.Contains(r.Stderr, "node 'other' cannot modify node '"+node+"'") {
		t.Errorf("another node's kubelet labelled %s: %s", node, r.String())
	}

	// Restart, with the serving certificate 10 days from expiry: it is
	// renewed at start; the CA, the objects and their UIDs stay.
	uid := k.MustRun(t, "get", "deployment", "nginx-deployment", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	pkiDir := filepath.Join(dataDir, "pki")
	caBefore, err := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	containers := func() string {
		return k.MustRun(t, "get", "pods", "-n", ns, "-l", "app=nginx", "--sort-by=.metadata.name",
			"-o", "jsonpath={range .items[*]}{.status.containerStatuses[0].containerID}/{.status.containerStatuses[0].restartCount} {end}")
	}
	// SIGTERM stops the pods with their grace periods.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive(ns) {
		t.Error("the pods' processes outlived all-in-one")
	}
	hosts, err := pki.DefaultHosts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-355 * 24 * time.Hour)
	if _, err := pki.EnsureServing(pkiDir, pki.Options{Hosts: hosts, Now: func() time.Time { return past }, Rotate: true}); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(readCert(t, filepath.Join(pkiDir, "apiserver.crt")).NotAfter); left > 11*24*time.Hour {
		t.Fatalf("the aged serving certificate still has %s", left)
	}
	s.ExtraArgs = []string{"--keep-pods"}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(readCert(t, filepath.Join(pkiDir, "apiserver.crt")).NotAfter); left < 300*24*time.Hour {
		t.Errorf("the serving certificate was not renewed at start: %s left", left)
	}
	caAfter, _ := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
	if !bytes.Equal(caBefore, caAfter) {
		t.Error("the CA changed across the restart")
	}
	k = s.Kubectl(t)
	if got := k.MustRun(t, "get", "deployment", "nginx-deployment", "-n", ns, "-o", "jsonpath={.metadata.uid}"); got != uid {
		t.Errorf("deployment uid %q after restart, want %q", got, uid)
	}
	k.MustRun(t, "get", "serviceaccount", "viewer", "-n", ns)
	eventually(t, 60*time.Second, func() string {
		r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=nginx", "-o", "jsonpath={.items[*].status.phase}")
		if strings.Count(r.Stdout, "Running") != 3 {
			return "pods after restart: " + r.String()
		}
		return ""
	})
	// With --keep-pods the pods outlive all-in-one and the next start
	// re-adopts the same containers.
	before := containers()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if !alive(ns) {
		t.Fatal("the pods' processes stopped with all-in-one despite --keep-pods")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	k = s.Kubectl(t)
	eventually(t, 30*time.Second, func() string {
		if after := containers(); after != before {
			return fmt.Sprintf("containers after a --keep-pods restart: %s, want the same as before: %s", after, before)
		}
		return ""
	})
	k.MustRun(t, "delete", "deployment/nginx-deployment", "statefulset/web", "-n", ns, "--wait", "--timeout=60s")
	eventually(t, 60*time.Second, func() string {
		if r := k.Run(t, "get", "pods", "-n", ns, "-o", "name"); strings.TrimSpace(r.Stdout) != "" {
			return "pods left: " + r.String()
		}
		return ""
	})
}
