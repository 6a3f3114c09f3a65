package fieldmanager

import (
	"encoding/json"
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
)

// csaCreated is a Deployment as client-side `kubectl apply` creates it:
// the configuration in the last-applied annotation, manager
// kubectl-client-side-apply.
func csaCreated(t *testing.T, f *FieldManager) *appsv1.Deployment {
	t.Helper()
	cfg := config(t, baseDeployment+"  replicas: 1\n")
	last, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := deployment(t, baseDeployment+"  replicas: 1\n")
	d.Annotations = map[string]string{LastAppliedAnnotation: string(last)}
	out, err := f.Update(nil, d, "kubectl-client-side-apply")
	if err != nil {
		t.Fatal(err)
	}
	return asDeployment(t, out)
}

const ssaConfig = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx:2}]
`

// TestClientSideApplyUpgrade: `kubectl apply --server-side` takes over the
// fields client-side apply set, without conflicts, when their values are
// still those of the last-applied annotation; and it keeps the annotation
// in step so that client-side apply keeps working afterwards.
func TestClientSideApplyUpgrade(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	live := csaCreated(t, f)

	out, err := f.Apply(live, config(t, ssaConfig), "kubectl", false)
	if err != nil {
		t.Fatalf("upgrade apply: %v", err)
	}
	d := asDeployment(t, out)
	if *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "nginx:2" {
		t.Errorf("merged = %+v", d.Spec)
	}
	e := entries(t, out)
	if !strings.Contains(e["kubectl/Apply"], `"f:replicas"`) || strings.Contains(e["kubectl-client-side-apply/Update"], `"f:replicas"`) {
		t.Errorf("ownership after upgrade: %v", e)
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(d.Annotations[LastAppliedAnnotation]), &last); err != nil {
		t.Fatalf("annotation: %v", err)
	}
	if want := config(t, ssaConfig); !jsonEqual(t, last, want) {
		t.Errorf("last-applied = %v, want the applied configuration", last)
	}

	// Another manager name does not take over.
	if _, err := f.Apply(live, config(t, ssaConfig), "helm", false); err == nil || !strings.Contains(err.Error(), "conflicts with \"kubectl-client-side-apply\" using apps/v1:\n- .spec.replicas") {
		t.Errorf("helm: err = %v", err)
	}

	// A field changed since by someone else is still a conflict.
	changed := live.DeepCopy()
	five := int32(5)
	changed.Spec.Replicas = &five
	changedOut, err := f.Update(live, changed, "hpa")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Apply(changedOut, config(t, ssaConfig), "kubectl", false)
	if err == nil || err.Error() != `Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas` {
		t.Errorf("err = %v", err)
	}
}

// TestLastAppliedOnlyWhenPresent: server-side apply does not add the
// annotation to objects that never had it.
func TestLastAppliedOnlyWhenPresent(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	out := mustApply(t, f, nil, config(t, ssaConfig), "kubectl", false)
	if _, ok := asDeployment(t, out).Annotations[LastAppliedAnnotation]; ok {
		t.Errorf("annotation added")
	}
}

// TestLastAppliedTooLarge: an annotation that would overflow the
// annotations' size limit is dropped rather than failing the apply.
func TestLastAppliedTooLarge(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	live := csaCreated(t, f)
	big := config(t, ssaConfig)
	big["metadata"].(map[string]any)["annotations"] = map[string]any{"big": strings.Repeat("x", totalAnnotationSizeLimit-1000)}
	out, err := f.Apply(live, big, "kubectl", false)
	if err != nil {
		t.Fatal(err)
	}
	d := asDeployment(t, out)
	if _, ok := d.Annotations[LastAppliedAnnotation]; ok {
		t.Errorf("oversized annotation kept")
	}
	if len(d.Annotations["big"]) == 0 {
		t.Errorf("applied annotation lost")
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}
