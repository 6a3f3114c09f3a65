package cmdutil

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
)

// PodsGVR is the resource of pods.
var PodsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// ServicesGVR is the resource of services.
var ServicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}

// PodsFor returns the pods an argument of logs or exec stands for: the pod
// of POD or pod/NAME, or the pods the spec.selector of TYPE/NAME picks,
// the best to read first (see ByLogging). A selector that picks nothing
// is an error at once (kubectl waits for a pod to appear).
func PodsFor(ctx context.Context, f *Factory, ns, arg string) ([]*dynamic.Unstructured, error) {
	dyn, err := f.Dynamic()
	if err != nil {
		return nil, err
	}
	typ, name, hasType := splitTypeName(arg)
	if !hasType {
		pod, err := dyn.Resource(PodsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return []*dynamic.Unstructured{pod}, nil
	}
	mapper, err := f.Mapper()
	if err != nil {
		return nil, err
	}
	m, err := mapper.ResourceFor(ctx, typ)
	if err != nil {
		return nil, err
	}
	obj, err := dyn.Resource(m.Resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if m.Resource == PodsGVR {
		return []*dynamic.Unstructured{obj}, nil
	}
	raw, ok := dynamic.NestedField(obj.Object, "spec", "selector").(map[string]any)
	if !ok {
		return nil, &NoSelectorError{Type: fmt.Sprintf("*%s.%s", m.Kind.Version, m.Kind.Kind)}
	}
	if m.Resource == ServicesGVR {
		// A Service selects by a plain map of labels.
		if len(raw) == 0 {
			return nil, fmt.Errorf("invalid service '%s': Service is defined without a selector", name)
		}
		raw = map[string]any{"matchLabels": raw}
	}
	selector, err := labelSelector(raw)
	if err != nil {
		return nil, err
	}
	list, err := dyn.Resource(PodsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	pods := list.Items()
	if len(pods) == 0 {
		return nil, fmt.Errorf("no pods found for %s %q", m.Kind.Kind, name)
	}
	slices.SortStableFunc(pods, ByLogging)
	return pods, nil
}

// NoSelectorError is an object that picks no pods (a ConfigMap, say);
// Type names it as kubectl does, by its Go type ("*v1.ConfigMap").
type NoSelectorError struct{ Type string }

func (e *NoSelectorError) Error() string {
	return fmt.Sprintf("selector for %s not implemented", e.Type)
}

func splitTypeName(arg string) (typ, name string, ok bool) {
	for i := 0; i < len(arg); i++ {
		if arg[i] == '/' {
			return arg[:i], arg[i+1:], true
		}
	}
	return "", arg, false
}

// labelSelector renders a metav1.LabelSelector held as JSON fields.
func labelSelector(raw map[string]any) (string, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return "", err
	}
	var sel metav1.LabelSelector
	if err := json.Unmarshal(b, &sel); err != nil {
		return "", err
	}
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return "", err
	}
	return s.String(), nil
}

// ByLogging orders pods as kubectl picks one to read: bound before
// unbound, Running before Unknown before Pending, ready before not, ready
// for longer first, more restarts first, older first, then by name.
func ByLogging(a, b *dynamic.Unstructured) int {
	na, nb := dynamic.NestedString(a.Object, "spec", "nodeName"), dynamic.NestedString(b.Object, "spec", "nodeName")
	if (na == "") != (nb == "") {
		return boolFirst(na != "")
	}
	rank := map[string]int{"Running": 0, "Unknown": 1, "Pending": 2}
	if c := cmp.Compare(rank[phase(a)], rank[phase(b)]); c != 0 {
		return c
	}
	ra, ta := readySince(a)
	rb, tb := readySince(b)
	if ra != rb {
		return boolFirst(ra)
	}
	if ra && ta != tb {
		return cmp.Compare(ta, tb)
	}
	if c := cmp.Compare(restarts(b), restarts(a)); c != 0 {
		return c
	}
	if c := cmp.Compare(created(a), created(b)); c != 0 {
		return c
	}
	return cmp.Compare(a.GetName(), b.GetName())
}

func boolFirst(first bool) int {
	if first {
		return -1
	}
	return 1
}

func phase(p *dynamic.Unstructured) string {
	return dynamic.NestedString(p.Object, "status", "phase")
}

// readySince reports whether the pod is ready and since when (RFC 3339).
func readySince(p *dynamic.Unstructured) (bool, string) {
	conds, _ := dynamic.NestedField(p.Object, "status", "conditions").([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if dynamic.NestedString(m, "type") == "Ready" {
			return dynamic.NestedString(m, "status") == "True", dynamic.NestedString(m, "lastTransitionTime")
		}
	}
	return false, ""
}

func created(p *dynamic.Unstructured) string {
	return dynamic.NestedString(p.Object, "metadata", "creationTimestamp")
}

// restarts is the highest restart count of the pod's containers.
func restarts(p *dynamic.Unstructured) int64 {
	var most int64
	statuses, _ := dynamic.NestedField(p.Object, "status", "containerStatuses").([]any)
	for _, s := range statuses {
		m, _ := s.(map[string]any)
		if n, ok := m["restartCount"].(json.Number); ok {
			if v, err := n.Int64(); err == nil && v > most {
				most = v
			}
		}
	}
	return most
}

// WaitForPod watches the pod ns/name until done says it is ready for
// what the caller does next, and returns it; done's error ends the wait.
func WaitForPod(ctx context.Context, f *Factory, ns, name string, done func(pod *dynamic.Unstructured) (bool, error)) (*dynamic.Unstructured, error) {
	dyn, err := f.Dynamic()
	if err != nil {
		return nil, err
	}
	pods := dyn.Resource(PodsGVR).Namespace(ns)
	pod, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	for {
		if ok, err := done(pod); ok || err != nil {
			return pod, err
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: pod.GetResourceVersion()})
		if err != nil {
			return nil, err
		}
		for ev := range w.ResultChan() {
			obj, ok := ev.Object.(*dynamic.Unstructured)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted {
				w.Stop()
				return nil, fmt.Errorf("pod %s/%s was deleted", ns, name)
			}
			pod = obj
			if ok, err := done(pod); ok || err != nil {
				w.Stop()
				return pod, err
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// TargetPod resolves the POD or TYPE/NAME argument of a command that
// streams to one pod (attach, exec) in the current namespace: the first
// pod of a workload's selector, as kubectl picks it. A kind without a
// selector is refused as kubectl words it.
func TargetPod(ctx context.Context, f *Factory, target string) (string, *dynamic.Unstructured, error) {
	ns, _, err := f.Namespace()
	if err != nil {
		return "", nil, err
	}
	pods, err := PodsFor(ctx, f, ns, target)
	var noSelector *NoSelectorError
	if errors.As(err, &noSelector) {
		return "", nil, fmt.Errorf("cannot attach to %s: %w", noSelector.Type, err)
	}
	if err != nil {
		return "", nil, err
	}
	return ns, pods[0], nil
}

// CopyLog copies the log of a pod's container to out, as kubectl does when
// it cannot attach.
func CopyLog(ctx context.Context, f *Factory, out io.Writer, ns, pod, container string) error {
	dyn, err := f.Dynamic()
	if err != nil {
		return err
	}
	req, err := dyn.Resource(PodsGVR).Namespace(ns).NewRequest("GET", pod, "log")
	if err != nil {
		return err
	}
	req.Param("container", container)
	body, err := req.Stream(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }()
	_, err = io.Copy(out, body)
	return err
}

// StreamContainer checks that pod has not completed and picks the
// container a streaming command talks to: the one asked for, else the
// default one, announced on errOut unless quiet. action words the refusal
// ("attach a container", "exec into a container").
func StreamContainer(pod *dynamic.Unstructured, container, action string, quiet bool, errOut io.Writer) (string, error) {
	if phase := dynamic.NestedString(pod.Object, "status", "phase"); phase == "Succeeded" || phase == "Failed" {
		return "", fmt.Errorf("cannot %s in a completed pod; current phase is %s", action, phase)
	}
	if container != "" {
		return container, nil
	}
	if quiet {
		errOut = nil
	}
	return DefaultContainer(pod, errOut), nil
}
