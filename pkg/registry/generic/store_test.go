package generic

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	generictesting "kubecore.io/kubecore/pkg/registry/generic/testing"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// podStrategy is a small pod strategy: generation on spec changes, status
// kept on update, one container required, graceful delete on a node.
type podStrategy struct {
	unconditional, createOnUpdate bool
}

func (podStrategy) NamespaceScoped() bool { return true }
func (podStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	p := obj.(*v1.Pod)
	p.Status = v1.PodStatus{}
	p.Generation = 1
}
func (podStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	if len(obj.(*v1.Pod).Spec.Containers) == 0 {
		return field.ErrorList{field.Required(field.NewPath("spec", "containers"), "")}
	}
	return nil
}
func (podStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	if obj.(*v1.Pod).Spec.DeprecatedServiceAccount != "" {
		return []string{"spec.serviceAccount: deprecated; use spec.serviceAccountName"}
	}
	return nil
}
func (podStrategy) Canonicalize(runtime.Object) {}
func (s podStrategy) AllowCreateOnUpdate() bool { return s.createOnUpdate }
func (podStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	p, o := obj.(*v1.Pod), old.(*v1.Pod)
	p.Status = o.Status
	if !reflect.DeepEqual(p.Spec, o.Spec) {
		p.Generation = o.Generation + 1
	}
}
func (s podStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}
func (podStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (s podStrategy) AllowUnconditionalUpdate() bool { return s.unconditional }
func (podStrategy) CheckGracefulDelete(_ context.Context, obj runtime.Object, opts *metav1.DeleteOptions) bool {
	p := obj.(*v1.Pod)
	if opts.GracePeriodSeconds == nil {
		g := int64(30)
		opts.GracePeriodSeconds = &g
	}
	if p.Spec.NodeName == "" {
		var zero int64
		opts.GracePeriodSeconds = &zero
	}
	return true
}

var (
	_ rest.CreateStrategy         = podStrategy{}
	_ rest.UpdateStrategy         = podStrategy{}
	_ rest.DeleteStrategy         = podStrategy{}
	_ rest.GracefulDeleteStrategy = podStrategy{}
)

var podsResource = schema.GroupResource{Resource: "pods"}

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newStore(strategy podStrategy) (*Store, *generictesting.MemoryStorage) {
	mem := generictesting.NewMemoryStorage()
	return &Store{
		NewFunc:                  func() runtime.Object { return &v1.Pod{} },
		NewListFunc:              func() runtime.Object { return &v1.PodList{} },
		DefaultQualifiedResource: podsResource,
		QualifiedKind:            schema.GroupKind{Kind: "Pod"},
		CreateStrategy:           strategy,
		UpdateStrategy:           strategy,
		DeleteStrategy:           strategy,
		ReturnDeletedObject:      true,
		Storage:                  mem,
		Clock:                    func() time.Time { return testNow },
	}, mem
}

func nsCtx(ns string) context.Context {
	return apirequest.WithNamespace(context.Background(), ns)
}

func newPod(name string, mutate ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "busybox"}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// statusOf fails unless err is an API error with the code, and returns it.
func statusOf(t *testing.T, err error, code int32) metav1.Status {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a StatusError", err, err)
	}
	if se.ErrStatus.Code != code {
		t.Fatalf("code = %d (%s: %s), want %d", se.ErrStatus.Code, se.ErrStatus.Reason, se.ErrStatus.Message, code)
	}
	return se.ErrStatus
}

func mustCreate(t *testing.T, s *Store, ns string, p *v1.Pod) *v1.Pod {
	t.Helper()
	out, err := s.Create(nsCtx(ns), p, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", p.Name, err)
	}
	return out.(*v1.Pod)
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name     string
		ctxNS    string
		pod      *v1.Pod
		validate rest.ValidateObjectFunc
		code     int32
		reason   metav1.StatusReason
		message  string
	}{
		{name: "ok", ctxNS: "default", pod: newPod("a")},
		{name: "namespace in body matches", ctxNS: "default", pod: newPod("a", func(p *v1.Pod) { p.Namespace = "default" })},
		{name: "namespace mismatch", ctxNS: "default", pod: newPod("a", func(p *v1.Pod) { p.Namespace = "other" }),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
			message: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "resourceVersion set", ctxNS: "default", pod: newPod("a", func(p *v1.Pod) { p.ResourceVersion = "5" }),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
			message: "resourceVersion should not be set on objects to be created"},
		{name: "invalid", ctxNS: "default", pod: newPod("a", func(p *v1.Pod) { p.Spec.Containers = nil }),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
			message: `Pod "a" is invalid: spec.containers: Required value`},
		{name: "no name", ctxNS: "default", pod: newPod(""),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
			message: `Pod "" is invalid: metadata.name: Required value: name or generateName is required`},
		{name: "admission", ctxNS: "default", pod: newPod("a"),
			validate: func(context.Context, runtime.Object) error {
				return apierrors.NewForbidden(podsResource, "a", errors.New("no"))
			},
			code: http.StatusForbidden, reason: metav1.StatusReasonForbidden, message: `pods "a" is forbidden: no`},
		{name: "no namespace", ctxNS: "", pod: newPod("a"),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
			message: `Pod "a" is invalid: metadata.namespace: Required value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, mem := newStore(podStrategy{})
			out, err := s.Create(nsCtx(tt.ctxNS), tt.pod, tt.validate, &metav1.CreateOptions{})
			if tt.code != 0 {
				st := statusOf(t, err, tt.code)
				if st.Reason != tt.reason || st.Message != tt.message {
					t.Fatalf("got %s %q, want %s %q", st.Reason, st.Message, tt.reason, tt.message)
				}
				if mem.Len() != 0 {
					t.Fatal("a failed create stored an object")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := out.(*v1.Pod)
			if p.Namespace != tt.ctxNS || p.UID == "" || p.ResourceVersion == "" || p.Generation != 1 ||
				!p.CreationTimestamp.Time.Equal(testNow) {
				t.Fatalf("server metadata not filled: %+v", p.ObjectMeta)
			}
			got, err := s.Get(nsCtx(tt.ctxNS), p.Name, &metav1.GetOptions{})
			if err != nil || got.(*v1.Pod).UID != p.UID {
				t.Fatalf("get after create: %v %v", got, err)
			}
		})
	}
}

func TestCreateAlreadyExists(t *testing.T) {
	s, _ := newStore(podStrategy{})
	mustCreate(t, s, "default", newPod("a", func(p *v1.Pod) { p.Finalizers = []string{"x/y"} }))
	_, err := s.Create(nsCtx("default"), newPod("a"), nil, &metav1.CreateOptions{})
	st := statusOf(t, err, http.StatusConflict)
	if st.Reason != metav1.StatusReasonAlreadyExists || st.Message != `pods "a" already exists` {
		t.Fatalf("got %s %q", st.Reason, st.Message)
	}
	if _, _, err := s.Delete(nsCtx("default"), "a", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(nsCtx("default"), newPod("a"), nil, &metav1.CreateOptions{})
	if st := statusOf(t, err, http.StatusConflict); st.Message != `object is being deleted: pods "a" already exists` {
		t.Fatalf("message %q", st.Message)
	}
}

func TestCreateGenerateName(t *testing.T) {
	for _, tt := range []struct {
		name       string
		collisions int
		wantErr    bool
	}{
		{name: "first try", collisions: 0},
		{name: "retries", collisions: 3},
		{name: "gives up", collisions: 100, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(podStrategy{})
			mustCreate(t, s, "default", newPod("web-taken"))
			calls := 0
			s.NameGenerator = func(base string) string {
				calls++
				if calls <= tt.collisions {
					return base + "taken"
				}
				return base + "fresh"
			}
			out, err := s.Create(nsCtx("default"), newPod("", func(p *v1.Pod) { p.GenerateName = "web-" }), nil, &metav1.CreateOptions{})
			if tt.wantErr {
				st := statusOf(t, err, http.StatusConflict)
				if st.Reason != metav1.StatusReasonAlreadyExists || !strings.Contains(st.Message, "the server was not able to generate a unique name for the object") {
					t.Fatalf("got %s %q", st.Reason, st.Message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out.(*v1.Pod).Name; got != "web-fresh" {
				t.Fatalf("name %q", got)
			}
		})
	}
	if n := rest.SimpleNameGenerator(strings.Repeat("a", 70)); len(n) != 63 {
		t.Fatalf("generated name of %d characters", len(n))
	}
	if n := rest.SimpleNameGenerator("web-"); len(n) != 9 || !strings.HasPrefix(n, "web-") {
		t.Fatalf("generated name %q", n)
	}
}

func TestCreateDryRun(t *testing.T) {
	s, mem := newStore(podStrategy{})
	out, err := s.Create(nsCtx("default"), newPod("a"), nil, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if p := out.(*v1.Pod); p.UID == "" || p.ResourceVersion != "" {
		t.Fatalf("dry run answer %+v", p.ObjectMeta)
	}
	if mem.Len() != 0 {
		t.Fatal("dry run stored the object")
	}
	mustCreate(t, s, "default", newPod("a"))
	_, err = s.Create(nsCtx("default"), newPod("a"), nil, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	statusOf(t, err, http.StatusConflict)
}

func TestNamespaceLifecycle(t *testing.T) {
	s, mem := newStore(podStrategy{})
	s.NamespaceLifecycle = func(_ context.Context, ns string) error {
		switch ns {
		case "missing":
			return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ns)
		case "ending":
			return apierrors.NewForbidden(podsResource, "a", errors.New("unable to create new content in namespace ending because it is being terminated"))
		}
		return nil
	}
	_, err := s.Create(nsCtx("missing"), newPod("a"), nil, nil)
	if st := statusOf(t, err, http.StatusNotFound); st.Message != `namespaces "missing" not found` {
		t.Fatalf("message %q", st.Message)
	}
	_, err = s.Create(nsCtx("ending"), newPod("a"), nil, nil)
	statusOf(t, err, http.StatusForbidden)
	mustCreate(t, s, "default", newPod("a"))
	if mem.Len() != 1 {
		t.Fatalf("%d objects stored", mem.Len())
	}
}

func TestGetAndList(t *testing.T) {
	s, _ := newStore(podStrategy{})
	mustCreate(t, s, "default", newPod("a"))
	mustCreate(t, s, "default", newPod("b", func(p *v1.Pod) { p.Labels = map[string]string{"app": "db"} }))
	mustCreate(t, s, "default2", newPod("c"))

	_, err := s.Get(nsCtx("default"), "c", &metav1.GetOptions{})
	if st := statusOf(t, err, http.StatusNotFound); st.Message != `pods "c" not found` {
		t.Fatalf("message %q", st.Message)
	}
	_, err = s.Get(nsCtx("default"), "a/b", nil)
	statusOf(t, err, http.StatusBadRequest)

	names := func(obj runtime.Object) []string {
		var out []string
		for _, p := range obj.(*v1.PodList).Items {
			out = append(out, p.Namespace+"/"+p.Name)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		ns   string
		opts *rest.ListOptions
		want []string
	}{
		{name: "namespace", ns: "default", opts: &rest.ListOptions{}, want: []string{"default/a", "default/b"}},
		{name: "all namespaces", ns: "", opts: nil, want: []string{"default/a", "default/b", "default2/c"}},
		{name: "labels", ns: "", opts: &rest.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}, want: []string{"default/a", "default2/c"}},
		{name: "single name", ns: "default", opts: &rest.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "b")}, want: []string{"default/b"}},
		{name: "namespace field", ns: "", opts: &rest.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "default2")}, want: []string{"default2/c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.List(nsCtx(tt.ns), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(list); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if list.(*v1.PodList).ResourceVersion != "3" {
				t.Fatalf("list resourceVersion %q", list.(*v1.PodList).ResourceVersion)
			}
		})
	}
}

// putInfo is a PUT body as rest.UpdatedObjectInfo.
type putInfo struct {
	obj           runtime.Object
	preconditions *metav1.Preconditions
	mutate        func(cur *v1.Pod)
}

func (p putInfo) Preconditions() *metav1.Preconditions { return p.preconditions }
func (p putInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if p.mutate != nil {
		cur := old.DeepCopyObject().(*v1.Pod)
		p.mutate(cur)
		return cur, nil
	}
	return p.obj.DeepCopyObject(), nil
}

func TestUpdate(t *testing.T) {
	wrongUID := types.UID("nope")
	tests := []struct {
		name     string
		strategy podStrategy
		info     func(cur *v1.Pod) putInfo
		target   string
		code     int32
		message  string
		check    func(t *testing.T, cur, out *v1.Pod)
	}{
		{name: "spec change bumps generation", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.Spec.Containers[0].Image = "nginx"
			p.Generation = 7
			return putInfo{obj: p}
		}, check: func(t *testing.T, cur, out *v1.Pod) {
			if out.Generation != 2 || out.ResourceVersion == cur.ResourceVersion || out.UID != cur.UID {
				t.Fatalf("metadata %+v", out.ObjectMeta)
			}
		}},
		{name: "stale resourceVersion", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.ResourceVersion = "1"
			p.Labels = map[string]string{"x": "y"}
			return putInfo{obj: p}
		}, code: http.StatusConflict,
			message: `Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes to the latest version and try again`},
		{name: "no resourceVersion", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.ResourceVersion = ""
			return putInfo{obj: p}
		}, code: http.StatusUnprocessableEntity,
			message: `pods "a" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`},
		{name: "unconditional", strategy: podStrategy{unconditional: true}, info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.ResourceVersion = ""
			p.Labels = map[string]string{"x": "y"}
			return putInfo{obj: p}
		}, check: func(t *testing.T, cur, out *v1.Pod) {
			if out.Labels["x"] != "y" || out.ResourceVersion == cur.ResourceVersion {
				t.Fatalf("not updated: %+v", out.ObjectMeta)
			}
		}},
		{name: "uid precondition", info: func(cur *v1.Pod) putInfo {
			return putInfo{obj: cur, preconditions: &metav1.Preconditions{UID: &wrongUID}}
		}, code: http.StatusConflict},
		{name: "missing without create", target: "zz", info: func(*v1.Pod) putInfo { return putInfo{obj: newPod("zz")} },
			code: http.StatusNotFound, message: `pods "zz" not found`},
		{name: "create on update", strategy: podStrategy{createOnUpdate: true}, target: "zz",
			info: func(*v1.Pod) putInfo { return putInfo{obj: newPod("zz")} },
			check: func(t *testing.T, _, out *v1.Pod) {
				if out.Name != "zz" || out.UID == "" || out.Generation != 1 {
					t.Fatalf("created %+v", out.ObjectMeta)
				}
			}},
		{name: "name mismatch", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.Name = "other"
			return putInfo{obj: p}
		}, code: http.StatusBadRequest, message: "the name of the object (other) does not match the name on the URL (a)"},
		{name: "namespace mismatch", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.Namespace = "other"
			return putInfo{obj: p}
		}, code: http.StatusBadRequest},
		{name: "deletionTimestamp set", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			now := metav1.NewTime(testNow)
			p.DeletionTimestamp = &now
			return putInfo{obj: p}
		}, code: http.StatusUnprocessableEntity, message: "metadata.deletionTimestamp"},
		{name: "uid changed", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.UID = "other"
			return putInfo{obj: p}
		}, code: http.StatusUnprocessableEntity, message: "metadata.uid: Invalid value"},
		{name: "strategy validation", info: func(cur *v1.Pod) putInfo {
			p := cur.DeepCopy()
			p.Spec.Containers = nil
			return putInfo{obj: p}
		}, code: http.StatusUnprocessableEntity, message: `Pod "a" is invalid: spec.containers: Required value`},
		{name: "patch-like mutate", info: func(*v1.Pod) putInfo {
			return putInfo{mutate: func(p *v1.Pod) { p.Labels["tier"] = "front" }}
		}, check: func(t *testing.T, _, out *v1.Pod) {
			if out.Labels["tier"] != "front" || out.Generation != 1 {
				t.Fatalf("patched %+v", out.ObjectMeta)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(tt.strategy)
			cur := mustCreate(t, s, "default", newPod("a"))
			// Move the stored resourceVersion past 1.
			cur = updateLabels(t, s, cur, map[string]string{"app": "web", "v": "2"})
			target := tt.target
			if target == "" {
				target = "a"
			}
			out, created, err := s.Update(nsCtx("default"), target, tt.info(cur), nil, nil, false, &metav1.UpdateOptions{})
			if tt.code != 0 {
				st := statusOf(t, err, tt.code)
				if !strings.Contains(st.Message, tt.message) {
					t.Fatalf("message %q, want %q", st.Message, tt.message)
				}
				got, _ := s.Get(nsCtx("default"), "a", nil)
				if got.(*v1.Pod).ResourceVersion != cur.ResourceVersion {
					t.Fatal("a failed update changed the object")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if created != (tt.target != "") {
				t.Fatalf("created = %v", created)
			}
			tt.check(t, cur, out.(*v1.Pod))
		})
	}
}

func updateLabels(t *testing.T, s *Store, cur *v1.Pod, l map[string]string) *v1.Pod {
	t.Helper()
	p := cur.DeepCopy()
	p.Labels = l
	out, _, err := s.Update(nsCtx(p.Namespace), p.Name, putInfo{obj: p}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	return out.(*v1.Pod)
}

func TestUpdateDryRun(t *testing.T) {
	s, _ := newStore(podStrategy{})
	cur := mustCreate(t, s, "default", newPod("a"))
	p := cur.DeepCopy()
	p.Labels = map[string]string{"dry": "run"}
	out, _, err := s.Update(nsCtx("default"), "a", putInfo{obj: p}, nil, nil, false, &metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || out.(*v1.Pod).Labels["dry"] != "run" {
		t.Fatalf("dry run: %v %v", out, err)
	}
	got, _ := s.Get(nsCtx("default"), "a", nil)
	if got.(*v1.Pod).ResourceVersion != cur.ResourceVersion {
		t.Fatal("dry run wrote")
	}
}

func TestGracefulDelete(t *testing.T) {
	s, _ := newStore(podStrategy{})
	mustCreate(t, s, "default", newPod("a", func(p *v1.Pod) { p.Spec.NodeName = "n1" }))
	ctx := nsCtx("default")

	out, done, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{})
	if err != nil || done {
		t.Fatalf("graceful delete: done=%v err=%v", done, err)
	}
	p := out.(*v1.Pod)
	if p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(testNow.Add(30*time.Second)) || *p.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("marked %+v", p.ObjectMeta)
	}
	// A longer grace period changes nothing.
	out, done, err = s.Delete(ctx, "a", nil, metav1.NewDeleteOptions(60))
	if err != nil || done || *out.(*v1.Pod).DeletionGracePeriodSeconds != 30 {
		t.Fatalf("longer grace: %v %v", done, err)
	}
	// A shorter one moves the deadline closer.
	out, done, err = s.Delete(ctx, "a", nil, metav1.NewDeleteOptions(10))
	if err != nil || done {
		t.Fatalf("shorter grace: %v %v", done, err)
	}
	if p := out.(*v1.Pod); *p.DeletionGracePeriodSeconds != 10 || !p.DeletionTimestamp.Time.Equal(testNow.Add(10*time.Second)) {
		t.Fatalf("shortened %+v", p.ObjectMeta)
	}
	// Zero deletes now.
	_, done, err = s.Delete(ctx, "a", nil, metav1.NewDeleteOptions(0))
	if err != nil || !done {
		t.Fatalf("zero grace: %v %v", done, err)
	}
	_, err = s.Get(ctx, "a", nil)
	statusOf(t, err, http.StatusNotFound)
	_, _, err = s.Delete(ctx, "a", nil, nil)
	if st := statusOf(t, err, http.StatusNotFound); st.Message != `pods "a" not found` {
		t.Fatalf("message %q", st.Message)
	}
}

func TestDeleteFinalizers(t *testing.T) {
	s, _ := newStore(podStrategy{})
	ctx := nsCtx("default")
	mustCreate(t, s, "default", newPod("a", func(p *v1.Pod) { p.Finalizers = []string{"example.com/hold"} }))

	out, done, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{})
	if err != nil || done {
		t.Fatalf("delete: %v %v", done, err)
	}
	p := out.(*v1.Pod)
	if p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("not marked: %+v", p.ObjectMeta)
	}
	// Deleting again keeps it marked.
	if _, done, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{}); err != nil || done {
		t.Fatalf("second delete: %v %v", done, err)
	}
	// No new finalizer once deletion started.
	marked, _ := s.Get(ctx, "a", nil)
	if marked.(*v1.Pod).ResourceVersion != p.ResourceVersion {
		t.Fatal("a repeated delete rewrote the object")
	}
	add := marked.(*v1.Pod).DeepCopy()
	add.Finalizers = append(add.Finalizers, "example.com/more")
	_, _, err = s.Update(ctx, "a", putInfo{obj: add}, nil, nil, false, nil)
	statusOf(t, err, http.StatusUnprocessableEntity)
	// Removing the last finalizer deletes it.
	cur, _ := s.Get(ctx, "a", nil)
	rm := cur.(*v1.Pod).DeepCopy()
	rm.Finalizers = nil
	if _, _, err := s.Update(ctx, "a", putInfo{obj: rm}, nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, "a", nil)
	statusOf(t, err, http.StatusNotFound)
}

func TestDeletePropagation(t *testing.T) {
	policy := func(p metav1.DeletionPropagation) *metav1.DeleteOptions {
		return &metav1.DeleteOptions{PropagationPolicy: &p}
	}
	for _, tt := range []struct {
		name      string
		opts      *metav1.DeleteOptions
		wantFin   []string
		wantGone  bool
		wantError int32
	}{
		{name: "background", opts: policy(metav1.DeletePropagationBackground), wantGone: true},
		{name: "default", opts: &metav1.DeleteOptions{}, wantGone: true},
		{name: "orphan", opts: policy(metav1.DeletePropagationOrphan), wantFin: []string{FinalizerOrphanDependents}},
		{name: "foreground", opts: policy(metav1.DeletePropagationForeground), wantFin: []string{FinalizerDeleteDependents}},
		{name: "unknown", opts: policy("Sideways"), wantError: http.StatusUnprocessableEntity},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(podStrategy{})
			mustCreate(t, s, "default", newPod("a"))
			out, done, err := s.Delete(nsCtx("default"), "a", nil, tt.opts)
			if tt.wantError != 0 {
				statusOf(t, err, tt.wantError)
				return
			}
			if err != nil || done != tt.wantGone {
				t.Fatalf("done=%v err=%v", done, err)
			}
			if !tt.wantGone {
				p := out.(*v1.Pod)
				if !reflect.DeepEqual(p.Finalizers, tt.wantFin) || p.DeletionTimestamp == nil {
					t.Fatalf("metadata %+v", p.ObjectMeta)
				}
			}
		})
	}
}

func TestDeletePreconditionsAndDryRun(t *testing.T) {
	s, mem := newStore(podStrategy{})
	ctx := nsCtx("default")
	cur := mustCreate(t, s, "default", newPod("a"))
	uid := types.UID("other")
	_, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	want := `Operation cannot be fulfilled on pods "a": the UID in the precondition (other) does not match the UID in record (` + string(cur.UID) + `). The object might have been deleted and then recreated`
	if st := statusOf(t, err, http.StatusConflict); st.Message != want {
		t.Fatalf("message %q", st.Message)
	}
	_, _, err = s.Delete(ctx, "a", nil, metav1.NewRVDeletionPrecondition("999"))
	statusOf(t, err, http.StatusConflict)

	out, done, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || !done || out.(*v1.Pod).Name != "a" || mem.Len() != 1 {
		t.Fatalf("dry run: %v %v %d", done, err, mem.Len())
	}
	refuse := func(context.Context, runtime.Object) error {
		return apierrors.NewForbidden(podsResource, "a", errors.New("no"))
	}
	_, _, err = s.Delete(ctx, "a", refuse, &metav1.DeleteOptions{})
	statusOf(t, err, http.StatusForbidden)

	s.ReturnDeletedObject = false
	out, done, err = s.Delete(ctx, "a", nil, metav1.NewRVDeletionPrecondition(cur.ResourceVersion))
	if err != nil || !done {
		t.Fatalf("delete: %v %v", done, err)
	}
	st := out.(*metav1.Status)
	if st.Status != metav1.StatusSuccess || st.Details.Name != "a" || st.Details.Kind != "pods" || st.Details.UID != cur.UID {
		t.Fatalf("status %+v", st)
	}
}

func TestDeleteCollection(t *testing.T) {
	s, mem := newStore(podStrategy{})
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		app := "web"
		if i%2 == 1 {
			app = "db"
		}
		mustCreate(t, s, "default", newPod(name, func(p *v1.Pod) { p.Labels = map[string]string{"app": app} }))
	}
	out, err := s.DeleteCollection(nsCtx("default"), nil, &metav1.DeleteOptions{},
		&rest.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"}), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.(*v1.PodList).Items); n != 3 {
		t.Fatalf("deleted %d", n)
	}
	if mem.Len() != 2 {
		t.Fatalf("%d left", mem.Len())
	}
}

func TestWatch(t *testing.T) {
	s, _ := newStore(podStrategy{})
	ctx, cancel := context.WithCancel(nsCtx("default"))
	defer cancel()
	first := mustCreate(t, s, "default", newPod("a"))
	w, err := s.Watch(ctx, &rest.ListOptions{ResourceVersion: first.ResourceVersion, LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, s, "default", newPod("skip", func(p *v1.Pod) { p.Labels = nil }))
	mustCreate(t, s, "other", newPod("elsewhere"))
	mustCreate(t, s, "default", newPod("b"))
	if _, _, err := s.Delete(ctx, "a", nil, nil); err != nil {
		t.Fatal(err)
	}
	// A graceful delete with no grace left records the mark, then deletes.
	want := []string{"ADDED b", "MODIFIED a", "DELETED a"}
	for _, wv := range want {
		select {
		case ev := <-w.ResultChan():
			if got := string(ev.Type) + " " + ev.Object.(*v1.Pod).Name; got != wv {
				t.Fatalf("event %q, want %q", got, wv)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event, want %q", wv)
		}
	}
}

func TestDefaultTable(t *testing.T) {
	s, _ := newStore(podStrategy{})
	mustCreate(t, s, "default", newPod("a"))
	list, err := s.List(nsCtx("default"), nil)
	if err != nil {
		t.Fatal(err)
	}
	table, err := s.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[0].Name != "Name" || table.ColumnDefinitions[1].Name != "Created At" {
		t.Fatalf("columns %+v", table.ColumnDefinitions)
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "a" || table.Rows[0].Cells[1] != "2025-03-01T12:00:00Z" {
		t.Fatalf("rows %+v", table.Rows)
	}
	if !strings.Contains(string(table.Rows[0].Object), `"kind":"PartialObjectMetadata"`) || table.ResourceVersion == "" {
		t.Fatalf("row object %s", table.Rows[0].Object)
	}
	one, err := s.ConvertToTable(context.Background(), &list.(*v1.PodList).Items[0], &metav1.TableOptions{IncludeObject: metav1.IncludeNone, NoHeaders: true})
	if err != nil || len(one.Rows) != 1 || one.Rows[0].Object != nil || one.ColumnDefinitions != nil {
		t.Fatalf("single: %+v %v", one, err)
	}
}

func TestCreateRecordsStrategyWarnings(t *testing.T) {
	store, _ := newStore(podStrategy{})
	var got []string
	ctx := apirequest.WithWarningRecorder(apirequest.WithNamespace(context.Background(), "default"),
		func(msg string) { got = append(got, msg) })
	pod := newPod("warned", func(p *v1.Pod) { p.Spec.DeprecatedServiceAccount = "sa" })
	if _, err := store.Create(ctx, pod, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"spec.serviceAccount: deprecated; use spec.serviceAccountName"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("warnings = %q, want %q", got, want)
	}
}
