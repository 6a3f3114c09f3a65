package strategy

import (
	"context"
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/generic"
	generictesting "kubecore.io/kubecore/pkg/registry/generic/testing"
	"kubecore.io/kubecore/pkg/registry/rest"
)

func noErrors(*appsv1.Deployment) field.ErrorList { return nil }

func TestOfDescribesTheResource(t *testing.T) {
	r := Of[appsv1.Deployment, appsv1.DeploymentList](appsv1.Resource("deployments"), "deployment", SpecAndStatus(noErrors, ValidateNew(noErrors))).
		Short("deploy").InCategories("all").ReturnsDeleted()
	if _, ok := r.NewObj().(*appsv1.Deployment); !ok {
		t.Errorf("NewObj gives %T", r.NewObj())
	}
	if _, ok := r.NewList().(*appsv1.DeploymentList); !ok {
		t.Errorf("NewList gives %T", r.NewList())
	}
	if r.Singular.String() != "deployment.apps" || r.Resource.String() != "deployments.apps" {
		t.Errorf("names %s %s", r.Resource, r.Singular)
	}
	if strings.Join(r.ShortNames, ",") != "deploy" || strings.Join(r.Categories, ",") != "all" || !r.ReturnDeleted {
		t.Errorf("discovery fields %v %v %v", r.ShortNames, r.Categories, r.ReturnDeleted)
	}
}

// TestStatusBy: the /status of NewWithStatus checks what StatusBy gives,
// in the resource's scope whatever the status strategy says; without
// StatusBy it checks nothing.
func TestStatusBy(t *testing.T) {
	refuse := func(obj, _ *appsv1.Deployment) field.ErrorList {
		return field.ErrorList{field.Invalid(field.NewPath("status", "replicas"), obj.Status.Replicas, "no")}
	}
	r := Of[appsv1.Deployment, appsv1.DeploymentList](appsv1.Resource("deployments"), "deployment", SpecAndStatus(noErrors, ValidateNew(noErrors)))
	d := &appsv1.Deployment{}
	if errs := r.statusStrategy().ValidateUpdate(context.Background(), d, d); len(errs) != 0 || !r.statusStrategy().NamespaceScoped() {
		t.Errorf("default status strategy: %v, namespaced %v", errs, r.statusStrategy().NamespaceScoped())
	}
	given := &StatusStrategy[*appsv1.Deployment]{ResetMetadata: true, ValidateStatus: refuse}
	s := r.StatusBy(given).statusStrategy()
	if errs := s.ValidateUpdate(context.Background(), d, d); len(errs) != 1 || !s.ResetMetadata || !s.NamespaceScoped() {
		t.Errorf("StatusBy: %v, reset %v, namespaced %v", errs, s.ResetMetadata, s.NamespaceScoped())
	}
	if given.Namespaced {
		t.Error("StatusBy changed the strategy it was given")
	}
	r.Strategy = ClusterScoped(noErrors, ValidateNew(noErrors))
	if r.StatusBy(given).statusStrategy().NamespaceScoped() {
		t.Error("the status of a cluster-scoped resource is namespaced")
	}
}

func TestAddServesSubresources(t *testing.T) {
	store := &generic.Store{}
	rs := Resources{}
	err := Add(rs, "deployments", generic.StoreOptions{}, func(generic.StoreOptions) (*WorkloadStorage[*appsv1.Deployment], error) {
		return &WorkloadStorage[*appsv1.Deployment]{Store: store, Status: NewStatusREST(store, &StatusStrategy[*appsv1.Deployment]{}), Scale: NewScaleREST(store, ScalableFields[*appsv1.Deployment]())}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"deployments", "deployments/status", "deployments/scale"} {
		if rs[path] == nil {
			t.Errorf("%s not served", path)
		}
	}
	if err := Add(rs, "configmaps", generic.StoreOptions{}, func(generic.StoreOptions) (*generic.Store, error) { return store, nil }); err != nil || rs["configmaps"] != store {
		t.Errorf("plain store: %v", err)
	}
}

func TestScalableFields(t *testing.T) {
	s := ScalableFields[*appsv1.Deployment]()
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
	d.Status.Replicas = 4
	if s.Replicas(d) != 1 {
		t.Errorf("unset replicas = %d, want 1", s.Replicas(d))
	}
	s.SetReplicas(d, 3)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 || s.Replicas(d) != 3 {
		t.Errorf("replicas after set: %v", d.Spec.Replicas)
	}
	if s.StatusReplicas(d) != 4 || s.Selector(d).MatchLabels["a"] != "b" {
		t.Errorf("status replicas %d selector %v", s.StatusReplicas(d), s.Selector(d))
	}
}

// scaleAdmission records the kinds and subresources admission sees.
type scaleAdmission struct{ seen []string }

func (a *scaleAdmission) Admit(_ context.Context, at *rest.Attributes) error {
	a.seen = append(a.seen, "admit "+at.Kind.Kind+" "+at.Subresource)
	if s, ok := at.Object.(*autoscalingv1.Scale); ok {
		s.Spec.Replicas++ // a mutating plugin's change is stored
	}
	return nil
}

func (a *scaleAdmission) Validate(_ context.Context, at *rest.Attributes) error {
	a.seen = append(a.seen, "validate "+at.Kind.Kind+" "+at.Subresource)
	return nil
}

type scaleTo struct{ replicas int32 }

func (scaleTo) Preconditions() *metav1.Preconditions { return nil }
func (s scaleTo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	sc := old.DeepCopyObject().(*autoscalingv1.Scale)
	sc.Spec.Replicas = s.replicas
	return sc, nil
}

// TestScaleAdmissionSeesScale checks that /scale writes pass admission as
// autoscaling/v1 Scales, not as the workload.
func TestScaleAdmissionSeesScale(t *testing.T) {
	adm := &scaleAdmission{}
	store := &generic.Store{
		NewFunc: func() runtime.Object { return &appsv1.Deployment{} }, NewListFunc: func() runtime.Object { return &appsv1.DeploymentList{} },
		DefaultQualifiedResource: appsv1.Resource("deployments"), Storage: generictesting.NewMemoryStorage(), Admission: adm,
	}
	s := SpecAndStatus(noErrors, ValidateNew(noErrors))
	store.CreateStrategy, store.UpdateStrategy, store.DeleteStrategy = s, s, s
	ctx := apirequest.WithNamespace(context.Background(), "ns")
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	if _, err := store.Create(ctx, d, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	adm.seen = nil
	scale := NewScaleREST(store, ScalableFields[*appsv1.Deployment]())
	out, _, err := scale.Update(ctx, "web", scaleTo{5}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*autoscalingv1.Scale).Spec.Replicas; got != 6 {
		t.Errorf("replicas = %d, want 6 (5 and the mutating plugin's one)", got)
	}
	if got := strings.Join(adm.seen, ","); got != "admit Scale scale,validate Scale scale" {
		t.Errorf("admission saw %s", got)
	}
}

// A status write keeps the stored spec; its metadata is stored as sent
// unless the strategy resets it, as Kubernetes' newer resources do.
func TestStatusWriteMetadata(t *testing.T) {
	replicas := func(n int32) *int32 { return &n }
	for _, reset := range []bool{false, true} {
		old := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"l": "old"}, Annotations: map[string]string{"a": "old"}, Finalizers: []string{"f"}},
			Spec:       appsv1.DeploymentSpec{Replicas: replicas(1)},
		}
		obj := old.DeepCopy()
		obj.Labels, obj.Annotations, obj.Finalizers = map[string]string{"l": "new"}, map[string]string{"a": "new"}, nil
		obj.Spec.Replicas = replicas(5)
		obj.Status.Replicas = 3
		s := &StatusStrategy[*appsv1.Deployment]{ResetMetadata: reset}
		s.PrepareForUpdate(context.Background(), obj, old)
		if *obj.Spec.Replicas != 1 || obj.Status.Replicas != 3 {
			t.Errorf("reset=%v: spec %d, status %d: want the stored spec and the new status", reset, *obj.Spec.Replicas, obj.Status.Replicas)
		}
		wantLabel, wantFinalizers := "new", 0
		if reset {
			wantLabel, wantFinalizers = "old", 1
		}
		if obj.Labels["l"] != wantLabel || obj.Annotations["a"] != wantLabel || len(obj.Finalizers) != wantFinalizers {
			t.Errorf("reset=%v: metadata %v %v %v", reset, obj.Labels, obj.Annotations, obj.Finalizers)
		}
		paths := s.GetResetFields()
		if got := paths.Has(fieldpath.MakePathOrDie("metadata", "labels")); got != reset {
			t.Errorf("reset=%v: reset fields hold metadata.labels: %v", reset, got)
		}
	}
}
