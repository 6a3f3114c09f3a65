package kubelet

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// Reasons of the Events the kubelet reports about pods.
const (
	eventFailedPostStartHook = "FailedPostStartHook"
	eventFailedPreStopHook   = "FailedPreStopHook"
)

// podEvents reports Events about pods. Its broadcaster is made on the
// first Event, so that kubelets that never report one (hundreds of hollow
// nodes) pay nothing; without a client Events are only logged.
type podEvents struct {
	cs     *typed.Clientset
	source corev1.EventSource
	// given replaces the broadcaster (Config.Recorder).
	given record.EventRecorder

	mu       sync.Mutex
	ctx      context.Context
	b        *record.Broadcaster
	recorder record.EventRecorder
}

func newPodEvents(cs *typed.Clientset, given record.EventRecorder, node string) *podEvents {
	return &podEvents{cs: cs, given: given, source: corev1.EventSource{Component: "kubelet", Host: node}}
}

// start sets the context whose logger reports failed writes; until then
// Events are only logged.
func (e *podEvents) start(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ctx = ctx
}

// warningf reports a Warning Event about pod and logs it.
func (e *podEvents) warningf(ctx context.Context, pod *corev1.Pod, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	klog.FromContext(ctx).V(2).Info("Pod event", "pod", klog.KObj(pod), "type", corev1.EventTypeWarning, "reason", reason, "message", msg)
	if r := e.get(); r != nil {
		r.Event(pod, corev1.EventTypeWarning, reason, msg)
	}
}

func (e *podEvents) get() record.EventRecorder {
	if e.given != nil {
		return e.given
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recorder == nil && e.cs != nil && e.ctx != nil {
		cs := e.cs
		e.b = record.NewBroadcaster(e.ctx, record.ClientSink(func(ns string) record.EventClient { return cs.CoreV1().Events(ns) }), record.Options{})
		e.recorder = e.b.NewRecorder(podKinds{}, e.source)
	}
	return e.recorder
}

// shutdown writes the queued Events, until ctx ends; later Events are
// only logged.
func (e *podEvents) shutdown(ctx context.Context) {
	e.mu.Lock()
	b := e.b
	e.b, e.recorder, e.ctx = nil, nil, nil
	e.mu.Unlock()
	if b != nil {
		if err := b.Shutdown(ctx); err != nil {
			klog.FromContext(ctx).V(2).Info("Events left unwritten", "err", err)
		}
	}
}

// podKinds tells the recorder that pods without TypeMeta are v1 Pods.
type podKinds struct{}

var _ record.KindResolver = podKinds{}

func (podKinds) ObjectKind(obj runtime.Object) (schema.GroupVersionKind, error) {
	if _, ok := obj.(*corev1.Pod); ok {
		return corev1.SchemeGroupVersion.WithKind("Pod"), nil
	}
	return schema.GroupVersionKind{}, fmt.Errorf("no kind known for %T", obj)
}
