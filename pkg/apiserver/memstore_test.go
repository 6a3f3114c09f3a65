package apiserver

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// The test API: widgets in group test.kubecore.io/v1, kept in memory.
var testGV = schema.GroupVersion{Group: "test.kubecore.io", Version: "v1"}

type WidgetItem struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

type WidgetSpec struct {
	Size  int          `json:"size,omitempty"`
	Color string       `json:"color,omitempty"`
	Items []WidgetItem `json:"items,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Items = append([]WidgetItem(nil), w.Spec.Items...)
	return &out
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = nil
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*Widget))
	}
	return &out
}

func newTestScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(testGV, &Widget{}, &WidgetList{})
	runtime.AddDefaultingFunc(s, func(w *Widget) {
		if w.Spec.Color == "" {
			w.Spec.Color = "blue"
		}
	})
	return s
}

// memStore is a tiny rest.Storage for widgets with a watch fan-out.
type memStore struct {
	mu       sync.Mutex
	rev      int
	objs     map[string]*Widget
	watchers map[chan watch.Event]bool
}

var (
	_ rest.Getter             = (*memStore)(nil)
	_ rest.Lister             = (*memStore)(nil)
	_ rest.Creater            = (*memStore)(nil)
	_ rest.Updater            = (*memStore)(nil)
	_ rest.GracefulDeleter    = (*memStore)(nil)
	_ rest.Watcher            = (*memStore)(nil)
	_ rest.Scoper             = (*memStore)(nil)
	_ rest.ShortNamesProvider = (*memStore)(nil)
)

func newMemStore() *memStore {
	return &memStore{objs: map[string]*Widget{}, watchers: map[chan watch.Event]bool{}}
}

var widgetsGR = schema.GroupResource{Group: testGV.Group, Resource: "widgets"}

func (m *memStore) New() runtime.Object     { return &Widget{} }
func (m *memStore) NewList() runtime.Object { return &WidgetList{} }
func (m *memStore) Destroy()                {}
func (m *memStore) NamespaceScoped() bool   { return true }
func (m *memStore) ShortNames() []string    { return []string{"wd"} }
func (m *memStore) Categories() []string    { return []string{"all"} }
func key(ns, name string) string            { return ns + "/" + name }

func (m *memStore) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	switch name {
	case "panic":
		panic("widget panic")
	case "slow":
		time.Sleep(time.Second)
		return nil, apierrors.NewNotFound(widgetsGR, name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.objs[key(apirequest.NamespaceValue(ctx), name)]
	if !ok {
		return nil, apierrors.NewNotFound(widgetsGR, name)
	}
	return w.DeepCopyObject(), nil
}

func (m *memStore) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ns := apirequest.NamespaceValue(ctx)
	list := &WidgetList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(m.rev)}}
	keys := make([]string, 0, len(m.objs))
	for k := range m.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w := m.objs[k]
		if ns != "" && w.Namespace != ns {
			continue
		}
		if opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(w.Labels)) {
			continue
		}
		list.Items = append(list.Items, *w.DeepCopyObject().(*Widget))
	}
	return list, nil
}

func (m *memStore) ConvertToTable(_ context.Context, obj runtime.Object, _ *metav1.TableOptions) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"}, {Name: "Size", Type: "integer"},
	}}
	add := func(w *Widget) { t.Rows = append(t.Rows, metav1.TableRow{Cells: []any{w.Name, w.Spec.Size}}) }
	switch o := obj.(type) {
	case *Widget:
		add(o)
	case *WidgetList:
		for i := range o.Items {
			add(&o.Items[i])
		}
	default:
		return nil, fmt.Errorf("cannot convert %T", obj)
	}
	return t, nil
}

func (m *memStore) notify(t watch.EventType, w *Widget) {
	for ch := range m.watchers {
		select {
		case ch <- watch.Event{Type: t, Object: w.DeepCopyObject()}:
		default:
		}
	}
}

func (m *memStore) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	w := obj.(*Widget)
	if w.Name == "" {
		return nil, apierrors.NewBadRequest("name is required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key(w.Namespace, w.Name)
	if _, ok := m.objs[k]; ok {
		return nil, apierrors.NewAlreadyExists(widgetsGR, w.Name)
	}
	out := w.DeepCopyObject().(*Widget)
	out.ResourceVersion = strconv.Itoa(m.rev + 1)
	if len(opts.DryRun) > 0 {
		return out, nil
	}
	m.rev++
	m.objs[k] = out
	m.notify(watch.Added, out)
	return out.DeepCopyObject(), nil
}

func (m *memStore) Update(ctx context.Context, name string, info rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key(apirequest.NamespaceValue(ctx), name)
	old, ok := m.objs[k]
	var oldObj runtime.Object
	if ok {
		oldObj = old.DeepCopyObject()
	}
	obj, err := info.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, apierrors.NewNotFound(widgetsGR, name)
	}
	w := obj.(*Widget)
	if w.ResourceVersion != "" && w.ResourceVersion != old.ResourceVersion {
		return nil, false, apierrors.NewConflict(widgetsGR, name, fmt.Errorf(apierrors.OptimisticLockErrorMsg))
	}
	w.ResourceVersion = strconv.Itoa(m.rev + 1)
	if len(opts.DryRun) > 0 {
		return w, false, nil
	}
	m.rev++
	m.objs[k] = w
	m.notify(watch.Modified, w)
	return w.DeepCopyObject(), false, nil
}

func (m *memStore) Delete(ctx context.Context, name string, _ rest.ValidateObjectFunc, _ *metav1.DeleteOptions) (runtime.Object, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key(apirequest.NamespaceValue(ctx), name)
	w, ok := m.objs[k]
	if !ok {
		return nil, false, apierrors.NewNotFound(widgetsGR, name)
	}
	delete(m.objs, k)
	m.rev++
	m.notify(watch.Deleted, w)
	return w, true, nil
}

func (m *memStore) Watch(ctx context.Context, _ *rest.ListOptions) (watch.Interface, error) {
	ch := make(chan watch.Event, 100)
	m.mu.Lock()
	m.watchers[ch] = true
	m.mu.Unlock()
	out := make(chan watch.Event)
	w := watch.NewProxyWatcher(out)
	go func() {
		defer close(out)
		defer func() {
			m.mu.Lock()
			delete(m.watchers, ch)
			m.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.StopChan():
				return
			case ev := <-ch:
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				case <-w.StopChan():
					return
				}
			}
		}
	}()
	return w, nil
}
