package controlplane

import (
	"context"
	"slices"
	"testing"
	"time"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func getFS(t *testing.T, in *Instance, name string) *flowcontrolv1.FlowSchema {
	t.Helper()
	obj, err := in.flowSchemas.Get(context.Background(), name, &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("flowschema %s: %v", name, err)
	}
	return obj.(*flowcontrolv1.FlowSchema)
}

func putFS(t *testing.T, in *Instance, fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchema {
	t.Helper()
	obj, _, err := in.flowSchemas.Update(context.Background(), fs.Name, objInfo{fs}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update flowschema %s: %v", fs.Name, err)
	}
	return obj.(*flowcontrolv1.FlowSchema)
}

// TestFlowControlBootstrap: the mandatory and suggested configuration is
// made at start with its status, a deleted object comes back, a changed
// one is restored while marked for auto-update and left alone when
// marked "false" or changed without the mark; the mandatory ones are
// always restored.
func TestFlowControlBootstrap(t *testing.T) {
	in, _ := start(t, Config{})
	ctx := context.Background()
	list, err := in.flowSchemas.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fs := range list.(*flowcontrolv1.FlowSchemaList).Items {
		names = append(names, fs.Name)
		if fs.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("flowschema %s annotations %v", fs.Name, fs.Annotations)
		}
		if len(fs.Status.Conditions) != 1 || fs.Status.Conditions[0].Type != "Dangling" || fs.Status.Conditions[0].Status != "False" {
			t.Errorf("flowschema %s conditions %+v", fs.Name, fs.Status.Conditions)
		}
	}
	want := []string{"catch-all", "exempt", "global-default", "kube-controller-manager", "kube-scheduler",
		"kube-system-service-accounts", "probes", "service-accounts", "system-leader-election", "system-node-high", "system-nodes"}
	if !slices.Equal(names, want) {
		t.Errorf("flowschemas %v, want %v", names, want)
	}
	levels, err := in.priorityLevels.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, pl := range levels.(*flowcontrolv1.PriorityLevelConfigurationList).Items {
		names = append(names, pl.Name)
	}
	if want := []string{"catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"}; !slices.Equal(names, want) {
		t.Errorf("priority levels %v, want %v", names, want)
	}

	// Deleted: back. Changed while marked true: restored. Marked false:
	// kept. Changed without the mark: kept and marked false. Mandatory
	// marked false: restored anyway.
	if _, _, err := in.flowSchemas.Delete(ctx, "service-accounts", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, annotation *string) {
		fs := getFS(t, in, name)
		fs.Spec.MatchingPrecedence = 4242
		if annotation == nil {
			delete(fs.Annotations, flowcontrolv1.AutoUpdateAnnotationKey)
		} else {
			fs.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] = *annotation
		}
		putFS(t, in, fs)
	}
	tru, fals := "true", "false"
	edit("global-default", &tru)
	edit("kube-scheduler", &fals)
	edit("system-nodes", nil)
	edit("catch-all", &fals)
	// A schema naming a missing level is dangling.
	orphan := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "orphan"}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "nowhere"}, MatchingPrecedence: 5000}}
	if _, err := in.flowSchemas.Create(ctx, orphan, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := in.EnsureFlowControl(ctx); err != nil {
		t.Fatal(err)
	}
	if fs := getFS(t, in, "service-accounts"); fs.Spec.MatchingPrecedence != 9000 || fs.Spec.PriorityLevelConfiguration.Name != "workload-low" {
		t.Errorf("deleted service-accounts came back as %+v", fs.Spec)
	}
	for name, want := range map[string]struct {
		precedence int32
		mark       string
	}{"global-default": {9900, "true"}, "kube-scheduler": {4242, "false"}, "system-nodes": {4242, "false"}, "catch-all": {10000, "true"}} {
		fs := getFS(t, in, name)
		if fs.Spec.MatchingPrecedence != want.precedence || fs.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] != want.mark {
			t.Errorf("%s: precedence %d, mark %q; want %d, %q", name, fs.Spec.MatchingPrecedence, fs.Annotations[flowcontrolv1.AutoUpdateAnnotationKey], want.precedence, want.mark)
		}
	}
	if c := getFS(t, in, "orphan").Status.Conditions; len(c) != 1 || c[0].Status != "True" || c[0].Reason != "NotFound" {
		t.Errorf("orphan conditions %+v", c)
	}
	// A second pass changes nothing.
	before := getFS(t, in, "global-default").ResourceVersion
	if err := in.EnsureFlowControl(ctx); err != nil {
		t.Fatal(err)
	}
	if after := getFS(t, in, "global-default").ResourceVersion; after != before {
		t.Errorf("an idle pass rewrote global-default: %s -> %s", before, after)
	}
}

// TestLocalAPIServices: every served built-in group version has a local
// APIService, available, restored when deleted or changed; the loop
// keeps them until its context ends.
func TestLocalAPIServices(t *testing.T) {
	in, _ := start(t, Config{})
	ctx := context.Background()
	list, err := in.apiServices.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]apiregistrationv1.APIService{}
	for _, a := range list.(*apiregistrationv1.APIServiceList).Items {
		got[a.Name] = a
	}
	for _, g := range in.Groups {
		name := g.GroupVersion.Version + "." + g.GroupVersion.Group
		a, ok := got[name]
		if g.GroupVersion.Group == apiregistrationv1.GroupName {
			if ok {
				t.Errorf("APIService %s exists; Kubernetes has none for its own group", name)
			}
			continue
		}
		if !ok {
			t.Errorf("no APIService %s", name)
			continue
		}
		if a.Spec.Service != nil || len(a.Status.Conditions) != 1 || a.Status.Conditions[0].Status != "True" || a.Status.Conditions[0].Reason != "Local" {
			t.Errorf("APIService %s: %+v %+v", name, a.Spec, a.Status)
		}
	}
	if a := got["v1."]; a.Spec.GroupPriorityMinimum != 18000 || a.Spec.VersionPriority != 1 || a.Labels[AutomanagedLabel] != "onstart" {
		t.Errorf("v1.: %+v %v", a.Spec, a.Labels)
	}
	if a := got["v1.flowcontrol.apiserver.k8s.io"]; a.Spec.GroupPriorityMinimum != 16100 || a.Spec.VersionPriority != 21 {
		t.Errorf("v1.flowcontrol.apiserver.k8s.io: %+v", a.Spec)
	}

	if _, _, err := in.apiServices.Delete(ctx, "v1.apps", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	batch := got["v1.batch"]
	batch.Spec.VersionPriority = 3
	if _, _, err := in.apiServices.Update(ctx, "v1.batch", objInfo{&batch}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	loopCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.RunBootstrapObjects(loopCtx, 10*time.Millisecond) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		apps, err1 := in.apiServices.Get(ctx, "v1.apps", &metav1.GetOptions{})
		b, err2 := in.apiServices.Get(ctx, "v1.batch", &metav1.GetOptions{})
		if err1 == nil && err2 == nil && b.(*apiregistrationv1.APIService).Spec.VersionPriority == 15 &&
			len(apps.(*apiregistrationv1.APIService).Status.Conditions) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("v1.apps and v1.batch not restored: %v %v", err1, err2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("loop: %v", err)
	}
}
