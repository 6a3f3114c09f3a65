// Package podsecurity holds the integration tests of PodSecurity
// admission: the pod-security.kubernetes.io namespace labels enforce
// (403 with Kubernetes' message), warn (Warning headers, for pods and
// workload templates) and audit (an annotation of the audit event), and
// the validation of the labels themselves.
package podsecurity

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

const wait = 30 * time.Second

// env is a test's API server, a client whose Warning headers are
// recorded, and the audit log.
type env struct {
	t        *testing.T
	ctx      context.Context
	cs       *typed.Clientset
	auditLog string

	mu       sync.Mutex
	warnings []string
}

func start(t *testing.T) *env {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, AuditLogPath: auditLog})
	e := &env{t: t, ctx: context.Background(), cs: s.Clientset(t), auditLog: auditLog}
	e.cs.SetWarningHandler(rest.WarningHandlerFunc(func(_ int, _, text string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.warnings = append(e.warnings, text)
	}))
	return e
}

// warned runs f and returns its error and the warnings its requests got.
func (e *env) warned(f func() error) ([]string, error) {
	e.mu.Lock()
	e.warnings = nil
	e.mu.Unlock()
	err := f()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.warnings, err
}

// namespace creates a namespace with labels.
func (e *env) namespace(labels map[string]string) string {
	e.t.Helper()
	ns, err := e.cs.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "psa-", Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return ns.Name
}

// createPod creates (or with dryRun, only tries) a pod.
func (e *env) createPod(pod *corev1.Pod, dryRun bool) error {
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err := e.cs.CoreV1().Pods(pod.Namespace).Create(e.ctx, pod, opts)
	return err
}

// waitPolicy waits until a dry-run create of probe in its namespace is
// refused: the API server sees the namespace's new labels (it reads them
// from its watch cache).
func (e *env) waitPolicy(probe *corev1.Pod) {
	e.t.Helper()
	framework.WaitUntil(e.t, wait, "the namespace policy in effect", func() bool {
		return apierrors.IsForbidden(e.createPod(probe, true))
	})
}

func ptr[T any](v T) *T { return &v }

// barePod has one container "c" with no security settings: it passes
// baseline and fails restricted on four checks.
func barePod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
}

// privilegedPod fails baseline.
func privilegedPod(ns, name string) *corev1.Pod {
	p := barePod(ns, name)
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
	return p
}

// restrictedPod passes restricted.
func restrictedPod(ns, name string) *corev1.Pod {
	p := barePod(ns, name)
	p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	return p
}

const restrictedViolations = `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
	`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
	`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
	`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

func TestEnforceRestricted(t *testing.T) {
	e := start(t)
	ns := e.namespace(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	e.waitPolicy(barePod(ns, "probe"))

	err := e.createPod(barePod(ns, "x"), false)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("create a bare pod: %v, want 403 Forbidden", err)
	}
	want := `pods "x" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedViolations
	if err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err.Error(), want)
	}
	if _, err := e.cs.CoreV1().Pods(ns).Get(e.ctx, "x", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused pod was stored: get answers %v", err)
	}
	warnings, err := e.warned(func() error { return e.createPod(restrictedPod(ns, "ok"), false) })
	if err != nil || len(warnings) != 0 {
		t.Errorf("create a restricted pod: %v, warnings %q", err, warnings)
	}
	// Workloads get no denial from enforce (their pods do).
	d := deployment(ns, "web", privilegedPod(ns, "").Spec)
	if _, err := e.cs.AppsV1().Deployments(ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Errorf("create a privileged Deployment under enforce: %v, want it stored", err)
	}
}

func TestBaselineVersusRestricted(t *testing.T) {
	e := start(t)
	ns := e.namespace(map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.30"})
	e.waitPolicy(privilegedPod(ns, "probe"))

	if err := e.createPod(barePod(ns, "bare"), false); err != nil {
		t.Errorf("a bare pod under baseline: %v, want it created", err)
	}
	p := privilegedPod(ns, "priv")
	p.Spec.HostNetwork = true
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
	err := e.createPod(p, false)
	want := `pods "priv" is forbidden: violates PodSecurity "baseline:v1.30": host namespaces (hostNetwork=true), ` +
		`hostPort (container "c" uses hostPort 80), privileged (container "c" must not set securityContext.privileged=true)`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("a privileged pod under baseline:\n got %v\nwant %s", err, want)
	}
}

func TestWarnAndAudit(t *testing.T) {
	e := start(t)
	ns := e.namespace(map[string]string{"pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/audit": "baseline"})
	var warnings []string
	framework.WaitUntil(t, wait, "the warn label in effect", func() bool {
		warnings, _ = e.warned(func() error { return e.createPod(barePod(ns, "probe"), true) })
		return len(warnings) > 0
	})

	warnings, err := e.warned(func() error { return e.createPod(privilegedPod(ns, "priv"), false) })
	if err != nil {
		t.Fatalf("warn and audit deny nothing: %v", err)
	}
	want := `would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
		`privileged (container "c" must not set securityContext.privileged=true), ` +
		`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	if !slices.Equal(warnings, []string{want}) {
		t.Errorf("warnings\n got %q\nwant %q", warnings, want)
	}

	// A workload's template is warned about on create and on a change of
	// the template, not on other updates.
	warnings, err = e.warned(func() error {
		_, err := e.cs.AppsV1().Deployments(ns).Create(e.ctx, deployment(ns, "web", barePod(ns, "").Spec), metav1.CreateOptions{})
		return err
	})
	if err != nil || !slices.Equal(warnings, []string{`would violate PodSecurity "restricted:latest": ` + restrictedViolations}) {
		t.Errorf("create a Deployment: %v, warnings %q", err, warnings)
	}
	warnings, err = e.warned(func() error {
		d, err := e.cs.AppsV1().Deployments(ns).Get(e.ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Labels = map[string]string{"touched": "yes"}
		_, err = e.cs.AppsV1().Deployments(ns).Update(e.ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil || len(warnings) != 0 {
		t.Errorf("update a Deployment's labels: %v, warnings %q (want none)", err, warnings)
	}

	// The audit event of the privileged pod's create carries the baseline
	// violation.
	wantAudit := `would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`
	framework.WaitFor(t, wait, "the audit event of the pod's create", func() (bool, error) {
		for _, ev := range e.auditEvents() {
			if ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Namespace == ns &&
				strings.HasSuffix(ev.RequestURI, "/pods") && ev.ResponseStatus.Code == 201 && ev.Stage == "ResponseComplete" &&
				ev.Annotations["pod-security.kubernetes.io/audit-violations"] == wantAudit &&
				ev.Annotations["pod-security.kubernetes.io/enforce-policy"] == "privileged:latest" {
				return true, nil
			}
		}
		return false, nil
	})
}

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	ObjectRef  *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Annotations map[string]string `json:"annotations"`
}

func (e *env) auditEvents() []auditEvent {
	f, err := os.Open(e.auditLog)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev auditEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

func deployment(ns, name string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}, Spec: spec},
		},
	}
}

func TestNamespaceLabels(t *testing.T) {
	e := start(t)
	_, err := e.cs.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "psa-bad",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "strict"}}}, metav1.CreateOptions{})
	want := `Namespace "psa-bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("a namespace with a bad level:\n got %v\nwant %s", err, want)
	}
	if se, ok := err.(apierrors.APIStatus); ok {
		if d := se.Status().Details; d == nil || len(d.Causes) != 1 || d.Causes[0].Field != "metadata.labels[pod-security.kubernetes.io/enforce]" {
			t.Errorf("causes %+v", d)
		}
	}

	ns := e.namespace(nil)
	for _, name := range []string{"a", "b"} {
		if err := e.createPod(barePod(ns, name), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.createPod(privilegedPod(ns, "p"), false); err != nil {
		t.Fatal(err)
	}
	label := func(labels map[string]string, dryRun bool) ([]string, error) {
		return e.warned(func() error {
			cur, err := e.cs.CoreV1().Namespaces().Get(e.ctx, ns, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Labels = labels
			opts := metav1.UpdateOptions{}
			if dryRun {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			_, err = e.cs.CoreV1().Namespaces().Update(e.ctx, cur, opts)
			return err
		})
	}
	if _, err := label(map[string]string{"pod-security.kubernetes.io/enforce-version": "1.30"}, false); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), `metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.30": must be "latest" or "v1.x"`) {
		t.Errorf("a bad version label: %v, want 422", err)
	}

	restricted := map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	wantWarnings := []string{
		`existing pods in namespace "` + ns + `" violate the new PodSecurity enforce level "restricted:latest"`,
		`a (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`,
		`p: allowPrivilegeEscalation != false, unrestricted capabilities, privileged, runAsNonRoot != true, seccompProfile`,
	}
	var warnings []string
	framework.WaitFor(t, wait, "warnings about the three existing pods", func() (bool, error) {
		warnings, err = label(restricted, true)
		return slices.Equal(warnings, wantWarnings), err
	})
	if warnings, err = label(restricted, false); err != nil || !slices.Equal(warnings, wantWarnings) {
		t.Errorf("label the namespace: %v, warnings\n got %q\nwant %q", err, warnings, wantWarnings)
	}
	// The same enforce level again warns about nothing.
	restricted["team"] = "x"
	if warnings, err = label(restricted, false); err != nil || len(warnings) != 0 {
		t.Errorf("relabel with the same level: %v, warnings %q", err, warnings)
	}
}
