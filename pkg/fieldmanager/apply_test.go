package fieldmanager

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

const baseDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx}]
`

func asDeployment(t *testing.T, obj runtime.Object) *appsv1.Deployment {
	t.Helper()
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("object is %T", obj)
	}
	return d
}

func statusOf(t *testing.T, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a Status", err, err)
	}
	return se
}

// TestApplyTwoManagers covers disjoint fields, a conflict with an applier
// and with an updater (409 worded as Kubernetes words it), and force.
func TestApplyTwoManagers(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := mustApply(t, f, nil, config(t, baseDeployment+"  replicas: 1\n"), "alice", false)
	c.tick(time.Minute)
	// Disjoint: bob adds a label.
	obj = mustApply(t, f, obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {team: blue}}
`), "bob", false)
	d := asDeployment(t, obj)
	if d.Labels["team"] != "blue" || *d.Spec.Replicas != 1 || d.Spec.Template.Spec.Containers[0].Image != "nginx" {
		t.Fatalf("merged deployment = %+v", d)
	}
	e := entries(t, obj)
	if e["bob/Apply"] != `{"f:metadata":{"f:labels":{"f:team":{}}}}` {
		t.Errorf("bob owns %s", e["bob/Apply"])
	}
	if !strings.Contains(e["alice/Apply"], `"f:replicas":{}`) {
		t.Errorf("alice owns %s", e["alice/Apply"])
	}

	// Overlapping: bob sets replicas alice applied.
	bobReplicas := config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {team: blue}}
spec: {replicas: 3}
`)
	_, err := f.Apply(obj, bobReplicas, "bob", false)
	se := statusOf(t, err)
	st := se.Status()
	if st.Code != http.StatusConflict || st.Reason != metav1.StatusReasonConflict {
		t.Errorf("status = %d %s", st.Code, st.Reason)
	}
	if want := `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`; st.Message != want {
		t.Errorf("message:\n got %s\nwant %s", st.Message, want)
	}
	wantCauses := []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "alice"`, Field: ".spec.replicas"}}
	if st.Details == nil || !reflect.DeepEqual(st.Details.Causes, wantCauses) {
		t.Errorf("causes = %+v", st.Details)
	}

	// Same value is shared ownership, not a conflict.
	same := config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {team: blue}}
spec: {replicas: 1}
`)
	shared := mustApply(t, f, obj, same, "bob", false)
	e = entries(t, shared)
	if !strings.Contains(e["alice/Apply"], `"f:replicas"`) || !strings.Contains(e["bob/Apply"], `"f:replicas"`) {
		t.Errorf("replicas not shared: %v", e)
	}

	// Force: bob takes replicas over.
	c.tick(time.Minute)
	forced := mustApply(t, f, obj, bobReplicas, "bob", true)
	if got := *asDeployment(t, forced).Spec.Replicas; got != 3 {
		t.Errorf("replicas = %d after force", got)
	}
	e = entries(t, forced)
	if strings.Contains(e["alice/Apply"], "replicas") || !strings.Contains(e["bob/Apply"], "replicas") {
		t.Errorf("after force: %v", e)
	}
	for _, m := range managedFields(t, forced) {
		if m.Manager == "bob" && !m.Time.Time.Equal(c.now) {
			t.Errorf("bob's time %v, want %v", m.Time, c.now)
		}
	}

	// An updater's field: the conflict names its API version; several
	// conflicts are listed by manager.
	upd := asDeployment(t, forced).DeepCopy()
	five := int32(5)
	upd.Spec.Replicas = &five
	upd.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	updated, err := f.Update(forced, upd, "hpa")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Apply(updated, config(t, baseDeployment+"  replicas: 1\n"), "alice", false)
	st = statusOf(t, err).Status()
	want := "Apply failed with 2 conflicts: conflicts with \"hpa\" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"app\"].image"
	if st.Message != want {
		t.Errorf("message:\n got %q\nwant %q", st.Message, want)
	}
	if len(st.Details.Causes) != 2 || st.Details.Causes[0].Message != `conflict with "hpa" using apps/v1` {
		t.Errorf("causes = %+v", st.Details.Causes)
	}
}

// TestApplyRemovesOnlyOwnFields: a field an applier stops applying goes
// away only when no other manager owns it.
func TestApplyRemovesOnlyOwnFields(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	const head = "apiVersion: apps/v1\nkind: Deployment\n"
	const spec = `spec:
  revisionHistoryLimit: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx}]
`
	obj := mustApply(t, f, nil, config(t, head+"metadata: {name: web, namespace: default, labels: {lx: '1', ly: '2'}}\n"+spec+"  replicas: 1\n"), "alice", false)
	obj = mustApply(t, f, obj, config(t, head+"metadata: {name: web, namespace: default, labels: {ly: '2'}}\n"), "bob", false)
	upd := asDeployment(t, obj).DeepCopy()
	upd.Annotations = map[string]string{"note": "n"}
	obj, err := f.Update(obj, upd, "editor")
	if err != nil {
		t.Fatal(err)
	}
	// alice drops both labels and replicas.
	obj = mustApply(t, f, obj, config(t, head+"metadata: {name: web, namespace: default}\n"+spec), "alice", false)
	d := asDeployment(t, obj)
	if _, ok := d.Labels["lx"]; ok {
		t.Errorf("label lx (alice's alone) kept: %v", d.Labels)
	}
	if d.Labels["ly"] != "2" {
		t.Errorf("label ly (bob's too) removed: %v", d.Labels)
	}
	if d.Spec.Replicas != nil {
		t.Errorf("replicas (alice's alone) kept: %d", *d.Spec.Replicas)
	}
	if d.Annotations["note"] != "n" || d.Spec.Template.Spec.Containers[0].Image != "nginx" {
		t.Errorf("other fields lost: %+v", d)
	}
}

// TestMergeByKey: containers by name, ports by containerPort and protocol
// (TCP when left out), env by name.
func TestMergeByKey(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := mustApply(t, f, nil, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
`), "alice", false)
	obj = mustApply(t, f, obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  template:
    spec:
      containers:
      - name: sidecar
        image: envoy
      - name: app
        ports: [{containerPort: 81}, {containerPort: 80, protocol: UDP}]
        env: [{name: B, value: "2"}]
`), "bob", false)
	d := asDeployment(t, obj)
	byName := map[string]int{}
	for i, ct := range d.Spec.Template.Spec.Containers {
		byName[ct.Name] = i
	}
	if len(byName) != 2 || len(d.Spec.Template.Spec.Containers) != 2 {
		t.Fatalf("containers = %+v", d.Spec.Template.Spec.Containers)
	}
	app := d.Spec.Template.Spec.Containers[byName["app"]]
	if len(app.Ports) != 3 || app.Image != "nginx" || d.Spec.Template.Spec.Containers[byName["sidecar"]].Image != "envoy" {
		t.Errorf("containers = %+v", d.Spec.Template.Spec.Containers)
	}
	if len(app.Env) != 2 || app.Env[0].Name != "A" || app.Env[1].Name != "B" {
		t.Errorf("env = %+v", app.Env)
	}
	e := entries(t, obj)
	if !strings.Contains(e["bob/Apply"], `k:{\"containerPort\":81,\"protocol\":\"TCP\"}`) || !strings.Contains(e["bob/Apply"], `k:{\"containerPort\":80,\"protocol\":\"UDP\"}`) {
		t.Errorf("bob's ports: %s", e["bob/Apply"])
	}
	// alice leaving out her env var removes only it.
	obj = mustApply(t, f, obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        ports: [{containerPort: 80}]
`), "alice", false)
	for _, ct := range asDeployment(t, obj).Spec.Template.Spec.Containers {
		if ct.Name == "app" {
			app = ct
		}
	}
	if len(app.Env) != 1 || app.Env[0].Name != "B" {
		t.Errorf("env after alice dropped A = %+v", app.Env)
	}
}

// TestAtomicFromMarkers: tolerations (+listType=atomic), nodeSelector
// (+mapType=atomic) and the selector (+structType=atomic) are owned whole.
func TestAtomicFromMarkers(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	obj := mustApply(t, f, nil, config(t, baseDeployment+`      nodeSelector: {disk: ssd}
      tolerations: [{key: a, operator: Exists}]
`), "alice", false)
	e := entries(t, obj)
	for _, want := range []string{`"f:nodeSelector":{}`, `"f:tolerations":{}`, `"f:selector":{}`} {
		if !strings.Contains(e["alice/Apply"], want) {
			t.Errorf("alice's fields lack %s: %s", want, e["alice/Apply"])
		}
	}
	_, err := f.Apply(obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  template:
    spec:
      nodeSelector: {zone: z1}
`), "bob", false)
	if err == nil || !strings.Contains(err.Error(), ".spec.template.spec.nodeSelector") {
		t.Errorf("atomic map: err = %v", err)
	}
}

func TestApplyRejects(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	cases := []struct {
		name, cfg, want string
		code            int32
	}{
		{"wrong kind", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\n", "invalid object type: apps/v1, Kind=ReplicaSet", 400},
		{"wrong version", "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: web}\n", "invalid object type: apps/v1beta1, Kind=Deployment", 400},
		{"managedFields", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, managedFields: [{manager: x}]}\n", "metadata.managedFields must be nil", 400},
		{"unknown field", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicaz: 1}\n", ".spec.replicaz: field not declared in schema", 0},
		{"duplicate key", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {containers: [{name: a}, {name: a}]}}}\n", "duplicate entries for key [name=\"a\"]", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Apply(nil, config(t, tc.cfg), "alice", false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			var se *apierrors.StatusError
			if tc.code != 0 && (!errors.As(err, &se) || se.Status().Code != tc.code) {
				t.Errorf("err %v is not a %d Status", err, tc.code)
			}
		})
	}
}

// TestApplyNoop: applying the same configuration again changes nothing,
// not even the entry's time.
func TestApplyNoop(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	cfg := config(t, baseDeployment+"  replicas: 2\n")
	first := mustApply(t, f, nil, cfg, "alice", false)
	c.tick(time.Hour)
	second := mustApply(t, f, first, cfg, "alice", false)
	if !reflect.DeepEqual(managedFields(t, first), managedFields(t, second)) {
		t.Errorf("managedFields changed:\n%+v\n%+v", managedFields(t, first), managedFields(t, second))
	}
	a, b := asDeployment(t, first).DeepCopy(), asDeployment(t, second).DeepCopy()
	a.ManagedFields, b.ManagedFields = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("object changed")
	}
}

// TestSubresources: status updates and applies are entries of their own,
// and the strategy's reset fields are owned by nobody there.
func TestSubresources(t *testing.T) {
	c := newClock()
	main := deploymentManager(t, c, "", fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	status := deploymentManager(t, c, "status", fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata")))
	obj := mustApply(t, main, nil, config(t, baseDeployment+"  replicas: 2\n"), "alice", false)

	upd := asDeployment(t, obj).DeepCopy()
	upd.Status.Replicas = 2
	upd.Status.ReadyReplicas = 1
	upd.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "forged", Operation: "Update", APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
	obj, err := status.Update(obj, upd, "deployment-controller")
	if err != nil {
		t.Fatal(err)
	}
	e := entries(t, obj)
	if e["deployment-controller/Update/status"] != `{"f:status":{"f:readyReplicas":{},"f:replicas":{}}}` {
		t.Errorf("status entry: %v", e)
	}
	if _, ok := e["forged/Update"]; ok {
		t.Errorf("managedFields sent to a subresource were kept: %v", e)
	}
	// Apply at /status: owns status only, and conflicts name the
	// subresource.
	obj = mustApply(t, status, obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
status: {observedGeneration: 3}
`), "probe", false)
	e = entries(t, obj)
	if e["probe/Apply/status"] != `{"f:status":{"f:observedGeneration":{}}}` {
		t.Errorf("status apply entry: %v", e)
	}
	_, err = main.Apply(obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
status: {replicas: 9}
`), "alice", false)
	if err != nil {
		t.Errorf("status through the main resource is reset, so no conflict: %v", err)
	}
	_, err = status.Apply(obj, config(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
status: {replicas: 9}
`), "other", false)
	if st := statusOf(t, err).Status(); st.Message != `Apply failed with 1 conflict: conflict with "deployment-controller" with subresource "status" using apps/v1: .status.replicas` {
		t.Errorf("message = %s", st.Message)
	}
}

// TestScaleSubresource: a scale write is recorded on the parent's paths
// with subresource scale; an apply through scale is a parent-shaped
// configuration of spec.replicas.
func TestScaleSubresource(t *testing.T) {
	c := newClock()
	notReplicas := fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	scale := deploymentManager(t, c, "scale", notReplicas)
	main := deploymentManager(t, c, "", nil)
	obj := mustApply(t, main, nil, config(t, baseDeployment+"  replicas: 2\n"), "alice", false)
	upd := asDeployment(t, obj).DeepCopy()
	four := int32(4)
	upd.Spec.Replicas = &four
	obj, err := scale.Update(obj, upd, "kubectl-scale")
	if err != nil {
		t.Fatal(err)
	}
	e := entries(t, obj)
	if e["kubectl-scale/Update/scale"] != `{"f:spec":{"f:replicas":{}}}` || strings.Contains(e["alice/Apply"], "replicas") {
		t.Errorf("entries: %v", e)
	}
	_, err = scale.Apply(obj, config(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 7}\n"), "autoscaler", false)
	if st := statusOf(t, err).Status(); !strings.Contains(st.Message, `conflict with "kubectl-scale" with subresource "scale" using apps/v1: .spec.replicas`) {
		t.Errorf("message = %s", st.Message)
	}
}
