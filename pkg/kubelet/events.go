package kubelet

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// Reasons of the Events the kubelet reports, as Kubernetes' kubelet names
// them: about containers (involvedObject the pod, with the container's
// fieldPath), about pods, and about its Node.
const (
	eventPulling             = "Pulling"
	eventPulled              = "Pulled"
	eventErrImageNeverPull   = "ErrImageNeverPull"
	eventCreated             = "Created"
	eventStarted             = "Started"
	eventFailed              = "Failed"
	eventKilling             = "Killing"
	eventBackOff             = "BackOff"
	eventUnhealthy           = "Unhealthy"
	eventFailedPostStartHook = "FailedPostStartHook"
	eventFailedPreStopHook   = "FailedPreStopHook"

	eventFailedMount            = "FailedMount"
	eventFailedCreatePodSandBox = "FailedCreatePodSandBox"
	eventDNSConfigForming       = "DNSConfigForming"
	eventSandboxChanged         = "SandboxChanged"
	eventHostNetwork            = "HostNetwork"

	eventStarting = "Starting"
)

// kubeletEvents reports the kubelet's Events through the shared recorder
// (source component "kubelet", host the node name). Its broadcaster is
// made on the first Event, so that kubelets that never report one pay
// nothing; without a client, or when disabled, Events are only logged.
type kubeletEvents struct {
	cs       *typed.Clientset
	source   corev1.EventSource
	disabled bool
	// given replaces the broadcaster (Config.Recorder).
	given record.EventRecorder

	mu       sync.Mutex
	ctx      context.Context
	b        *record.Broadcaster
	recorder record.EventRecorder
}

func newKubeletEvents(cs *typed.Clientset, given record.EventRecorder, node string, disabled bool) *kubeletEvents {
	return &kubeletEvents{cs: cs, given: given, disabled: disabled, source: corev1.EventSource{Component: "kubelet", Host: node}}
}

// start sets the context whose logger reports failed writes; until then
// Events are only logged.
func (e *kubeletEvents) start(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ctx = ctx
}

// podRef refers to a pod; fieldPath, when set, to a part of it.
func podRef(pod *corev1.Pod, fieldPath string) corev1.ObjectReference {
	return corev1.ObjectReference{
		Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
		ResourceVersion: pod.ResourceVersion, FieldPath: fieldPath,
	}
}

// containerFieldPath is the fieldPath of a pod's container, as Kubernetes
// writes it: spec.containers{name} or spec.initContainers{name}; "" for a
// name the spec does not have.
func containerFieldPath(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return "spec.containers{" + name + "}"
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return "spec.initContainers{" + name + "}"
		}
	}
	return ""
}

// logLevel is the verbosity at which Events of eventType are logged.
func logLevel(eventType string) klog.Level {
	if eventType == corev1.EventTypeWarning {
		return 2
	}
	return 4
}

// wanted says whether an Event of eventType goes anywhere, to a recorder
// or the log: hollow nodes skip making the ones that would not.
func (e *kubeletEvents) wanted(ctx context.Context, eventType string) bool {
	return e.given != nil || (!e.disabled && e.cs != nil) || klog.FromContext(ctx).V(int(logLevel(eventType))).Enabled()
}

// pod reports an Event about a pod.
func (e *kubeletEvents) pod(ctx context.Context, pod *corev1.Pod, eventType, reason, format string, args ...any) {
	if e.wanted(ctx, eventType) {
		e.record(ctx, podRef(pod, ""), eventType, reason, fmt.Sprintf(format, args...))
	}
}

// container reports an Event about a container of a pod.
func (e *kubeletEvents) container(ctx context.Context, pod *corev1.Pod, name, eventType, reason, format string, args ...any) {
	if e.wanted(ctx, eventType) {
		e.record(ctx, podRef(pod, containerFieldPath(pod, name)), eventType, reason, fmt.Sprintf(format, args...))
	}
}

// node reports an Event about the kubelet's Node. Its reference carries
// the node's name as UID, as Kubernetes' kubelet's does and as `kubectl
// describe node` looks its Events up.
func (e *kubeletEvents) node(ctx context.Context, eventType, reason, format string, args ...any) {
	if !e.wanted(ctx, eventType) {
		return
	}
	ref := corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: e.source.Host, UID: types.UID(e.source.Host)}
	e.record(ctx, ref, eventType, reason, fmt.Sprintf(format, args...))
}

func (e *kubeletEvents) record(ctx context.Context, ref corev1.ObjectReference, eventType, reason, msg string) {
	if logger := klog.FromContext(ctx).V(int(logLevel(eventType))); logger.Enabled() {
		logger.Info("Event", "object", klog.KRef(ref.Namespace, ref.Name), "kind", ref.Kind, "fieldPath", ref.FieldPath, "type", eventType, "reason", reason, "message", msg)
	}
	if r := e.get(); r != nil {
		r.Event(&record.Reference{ObjectReference: ref}, eventType, reason, msg)
	}
}

func (e *kubeletEvents) get() record.EventRecorder {
	if e.given != nil {
		return e.given
	}
	if e.disabled {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recorder == nil && e.cs != nil && e.ctx != nil {
		cs := e.cs
		e.b = record.NewBroadcaster(e.ctx, record.ClientSink(func(ns string) record.EventClient { return cs.CoreV1().Events(ns) }), record.Options{})
		e.recorder = e.b.NewRecorder(nil, e.source)
	}
	return e.recorder
}

// shutdown writes the queued Events, until ctx ends; later Events are
// only logged.
func (e *kubeletEvents) shutdown(ctx context.Context) {
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
