package generic

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	v1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// templateView serves the test Store's pods as PodTemplates of the group
// view.example.com: the template is the pod's spec less its nodeName, which
// an update keeps from the stored pod, a "forbidden" label is refused on create and a label
// change on update, and the field "template.nodeName" selects
// spec.nodeName.
func templateView() ViewOf[v1.PodTemplate, v1.PodTemplateList, v1.Pod, v1.PodList] {
	return ViewOf[v1.PodTemplate, v1.PodTemplateList, v1.Pod, v1.PodList]{
		Resource: schema.GroupResource{Group: "view.example.com", Resource: "pods"},
		Kind:     "Pod",
		ToView: func(p *v1.Pod) *v1.PodTemplate {
			t := &v1.PodTemplate{ObjectMeta: *p.ObjectMeta.DeepCopy(), Template: v1.PodTemplateSpec{Spec: *p.Spec.DeepCopy()}}
			t.Template.Spec.NodeName = ""
			return t
		},
		ToStored: func(t *v1.PodTemplate, base *v1.Pod) *v1.Pod {
			p := &v1.Pod{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Template.Spec.DeepCopy()}
			if base != nil {
				p.Spec.NodeName = base.Spec.NodeName
			}
			return p
		},
		ViewItems:   func(l *v1.PodTemplateList) *[]v1.PodTemplate { return &l.Items },
		StoredItems: func(l *v1.PodList) *[]v1.Pod { return &l.Items },
		Validate: func(t *v1.PodTemplate) field.ErrorList {
			if _, ok := t.Labels["forbidden"]; ok {
				return field.ErrorList{field.Forbidden(field.NewPath("metadata", "labels"), "no forbidden label")}
			}
			return nil
		},
		ValidateUpdate: func(t, old *v1.PodTemplate) field.ErrorList {
			if t.Labels["app"] != old.Labels["app"] {
				return field.ErrorList{field.Invalid(field.NewPath("metadata", "labels"), t.Labels["app"], "field is immutable")}
			}
			return nil
		},
		FieldLabel: func(label, value string) (string, string, error) {
			if label == "template.nodeName" {
				return "metadata.name", value, nil // the test Store selects by name only
			}
			return label, value, nil
		},
	}
}

// changeInfo is an update computed from the object it is handed.
type changeInfo func(old runtime.Object) runtime.Object

func (changeInfo) Preconditions() *metav1.Preconditions { return nil }
func (c changeInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	return c(old), nil
}

func newTemplate(name string) *v1.PodTemplate {
	return &v1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Template:   v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "busybox"}}}},
	}
}

func newTemplateView(t *testing.T) (*View, *Store) {
	t.Helper()
	s, _ := newStore(podStrategy{})
	v, err := NewView(s, nil, templateView(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return v, s
}

// TestViewVerbs: every verb of a View reaches the stored pods and answers
// in the view's kind; updates keep what the view cannot express.
func TestViewVerbs(t *testing.T) {
	v, s := newTemplateView(t)
	ctx := nsCtx("ns")

	out, err := v.Create(ctx, newTemplate("a"), nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created, ok := out.(*v1.PodTemplate)
	if !ok || created.Namespace != "ns" || created.UID == "" || created.Template.Spec.Containers[0].Image != "busybox" {
		t.Fatalf("create answered %#v", out)
	}
	stored, err := s.Get(ctx, "a", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := stored.(*v1.Pod); p.Spec.Containers[0].Name != "c" || p.Generation != 1 {
		t.Fatalf("stored %+v", p)
	}

	// A pod bound to a node, which the view cannot show: an update through
	// the view keeps its node.
	mustCreate(t, s, "ns", newPod("bound", func(p *v1.Pod) { p.Spec.NodeName = "n1" }))
	var seenOld runtime.Object
	out, _, err = v.Update(ctx, "bound", changeInfo(func(old runtime.Object) runtime.Object {
		seenOld = old
		n := old.DeepCopyObject().(*v1.PodTemplate)
		n.Template.Spec.Containers[0].Image = "nginx"
		return n
	}), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := seenOld.(*v1.PodTemplate); !ok {
		t.Fatalf("the update saw a %T, want the view", seenOld)
	}
	if out.(*v1.PodTemplate).Template.Spec.Containers[0].Image != "nginx" {
		t.Fatalf("update answered %+v", out)
	}
	stored, _ = s.Get(ctx, "bound", &metav1.GetOptions{})
	if p := stored.(*v1.Pod); p.Spec.NodeName != "n1" || p.Spec.Containers[0].Image != "nginx" || p.Generation != 2 {
		t.Fatalf("after a view update the pod is %+v", p.Spec)
	}

	got, err := v.Get(ctx, "bound", &metav1.GetOptions{})
	if err != nil || got.(*v1.PodTemplate).Template.Spec.Containers[0].Image != "nginx" {
		t.Fatalf("get: %#v %v", got, err)
	}

	if _, err := v.Create(ctx, newTemplate("b"), nil, nil); err != nil {
		t.Fatal(err)
	}
	list, err := v.List(ctx, &rest.ListOptions{FieldSelector: fields.OneTermEqualSelector("template.nodeName", "b")})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := list.(*v1.PodTemplateList)
	if !ok || len(l.Items) != 1 || l.Items[0].Name != "b" || l.ResourceVersion == "" || l.Items[0].Kind != "" {
		t.Fatalf("list by the view's field: %#v", list)
	}

	table, err := v.ConvertToTable(ctx, l, &metav1.TableOptions{IncludeObject: metav1.IncludeObject})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 1 || table.Rows[0].Object != nil || table.Rows[0].Cells[0] != "b" {
		t.Fatalf("table rows %+v: want the view's row without the stored object", table.Rows)
	}

	deleted, _, err := v.Delete(ctx, "b", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := deleted.(*v1.PodTemplate); !ok {
		t.Fatalf("delete answered a %T", deleted)
	}
	all, err := v.DeleteCollection(ctx, nil, nil, &rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := all.(*v1.PodTemplateList); !ok || len(l.Items) != 2 || l.Items[0].Name != "a" {
		t.Fatalf("delete collection answered %#v", all)
	}
}

// TestViewChecksAndErrors: the view's own rules refuse what the stored
// kind would take, in the view's kind, storing nothing; the stored Store's
// errors about its resource name the view's group, others stay as they
// are; a view without its conversions is refused when built.
func TestViewChecksAndErrors(t *testing.T) {
	v, s := newTemplateView(t)
	ctx := nsCtx("ns")

	bad := newTemplate("bad")
	bad.Labels["forbidden"] = "x"
	_, err := v.Create(ctx, bad, nil, nil)
	st := statusOf(t, err, http.StatusUnprocessableEntity)
	if st.Message != `Pod.view.example.com "bad" is invalid: metadata.labels: Forbidden: no forbidden label` || st.Details.Group != "view.example.com" {
		t.Errorf("create refused by the view: %+v", st)
	}
	if _, err := s.Get(ctx, "bad", nil); err == nil {
		t.Error("a refused create stored the object")
	}

	if _, err := v.Create(ctx, newTemplate("a"), nil, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = v.Update(ctx, "a", changeInfo(func(old runtime.Object) runtime.Object {
		n := old.DeepCopyObject().(*v1.PodTemplate)
		n.Labels = map[string]string{"app": "db"}
		return n
	}), nil, nil, false, nil)
	if st := statusOf(t, err, http.StatusUnprocessableEntity); !strings.Contains(st.Message, "metadata.labels: Invalid value: \"db\": field is immutable") {
		t.Errorf("update refused by the view: %+v", st)
	}
	// The stored strategy's own rule, in the stored kind's words but the
	// view's group.
	noContainers := newTemplate("empty")
	noContainers.Template.Spec.Containers = nil
	_, err = v.Create(ctx, noContainers, nil, nil)
	if st := statusOf(t, err, http.StatusUnprocessableEntity); st.Message != `Pod.view.example.com "empty" is invalid: spec.containers: Required value` {
		t.Errorf("create refused by the stored strategy: %+v", st)
	}

	_, err = v.Get(ctx, "missing", nil)
	if st := statusOf(t, err, http.StatusNotFound); st.Message != `pods.view.example.com "missing" not found` || st.Details.Group != "view.example.com" {
		t.Errorf("not found: %+v", st)
	}
	_, err = v.Create(nsCtx("ns"), newTemplate("a"), nil, nil)
	if st := statusOf(t, err, http.StatusConflict); !strings.HasPrefix(st.Message, `pods.view.example.com "a" already exists`) {
		t.Errorf("already exists: %+v", st)
	}
	_, err = v.Create(ctx, &v1.Pod{}, nil, nil)
	statusOf(t, err, http.StatusBadRequest)

	broken := templateView()
	broken.ToStored = nil
	if _, err := NewView(s, nil, broken, nil); err == nil || !strings.Contains(err.Error(), "ToStored") {
		t.Errorf("a view without ToStored was built: %v", err)
	}
}

// TestViewWatch: a View's watch converts every object, and stopping it
// stops the stored watch.
func TestViewWatch(t *testing.T) {
	v, _ := newTemplateView(t)
	ctx, cancel := context.WithCancel(nsCtx("ns"))
	defer cancel()
	first, err := v.Create(ctx, newTemplate("a"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := v.Watch(ctx, &rest.ListOptions{ResourceVersion: first.(*v1.PodTemplate).ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Create(ctx, newTemplate("b"), nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if tpl, ok := ev.Object.(*v1.PodTemplate); ev.Type != watch.Added || !ok || tpl.Name != "b" {
			t.Fatalf("event %s %#v", ev.Type, ev.Object)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	w.Stop()
	for range w.ResultChan() {
	}
}

// TestViewApply: a View takes applies by the view's schema and creates a
// missing object; a StatusView never creates one; without FieldManagers an
// apply is a 415.
func TestViewApply(t *testing.T) {
	s, fms := newApplyingStore(t)
	v, err := NewView(s, s.FieldManager, templateView(), fms)
	if err != nil {
		t.Fatal(err)
	}
	status, err := NewStatusView(s, s.FieldManager, templateView(), fms)
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "PodTemplate", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": "web"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}
	}
	ctx := nsCtx("ns")
	if _, _, err := status.Apply(ctx, "a", cfg("a"), false, &metav1.UpdateOptions{FieldManager: "m"}); err == nil {
		t.Error("an apply to the StatusView created the object")
	}
	out, created, err := v.Apply(ctx, "a", cfg("a"), false, &metav1.UpdateOptions{FieldManager: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tpl := out.(*v1.PodTemplate)
	if !created || tpl.Template.Spec.Containers[0].Image != "busybox" || len(tpl.ManagedFields) != 1 ||
		tpl.ManagedFields[0].APIVersion != "v1" || tpl.ManagedFields[0].Operation != "Apply" {
		t.Fatalf("apply created=%v %+v", created, tpl.ObjectMeta)
	}
	if !strings.Contains(string(tpl.ManagedFields[0].FieldsV1.Raw), `"f:template"`) {
		t.Errorf("managed fields %s: want the view's fields", tpl.ManagedFields[0].FieldsV1.Raw)
	}

	plain, _ := newTemplateView(t)
	_, _, err = plain.Apply(ctx, "a", cfg("a"), false, nil)
	statusOf(t, err, http.StatusUnsupportedMediaType)
}
