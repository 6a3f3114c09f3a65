package kubelet

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// ObjectWatcher keeps the config maps and secrets that pods refer to (in
// volumes, projected volumes, env and envFrom) as Kubernetes' kubelet
// does with its Watch change detection strategy: one watch per referenced
// object (a field selector on its name), open while some registered pod
// refers to it and closed when none does. Reads are served from the
// watches, never by a GET, so an idle node costs the API nothing for its
// pods' config maps and volumes see an edit on their next sync.
//
// One ObjectWatcher may serve many kubelets of a process (hollow nodes):
// every pod of every node registers with it and each object is watched
// once. Objects it returns are shared and must not be modified.
type ObjectWatcher struct {
	cs *typed.Clientset

	mu      sync.Mutex
	ctx     context.Context // nil until Run
	objects map[objectKey]*watchedObject
	pods    map[types.UID][]objectKey
	// services watches every Service once a container's environment
	// first needs them (nil until then).
	services *cache.Informer[*corev1.Service]
	// servicesStarted is set once services runs under ctx.
	servicesStarted bool
}

// watchedObject is one config map's or secret's watch and its references.
type watchedObject struct {
	refs   int
	cancel context.CancelFunc // nil until started
	run    func(ctx context.Context)
	synced func() bool
	get    func() (runtime.Object, bool)
}

var _ ObjectGetter = (*ObjectWatcher)(nil)

// NewObjectWatcher makes an ObjectWatcher reading through cs; its watches
// start once Run does.
func NewObjectWatcher(cs *typed.Clientset) *ObjectWatcher {
	return &ObjectWatcher{cs: cs, objects: map[objectKey]*watchedObject{}, pods: map[types.UID][]objectKey{}}
}

// Run starts the watches of the objects registered so far and those
// registered later, until ctx ends; then it closes them all.
func (w *ObjectWatcher) Run(ctx context.Context) {
	w.mu.Lock()
	if w.ctx != nil {
		w.mu.Unlock()
		return
	}
	w.ctx = ctx
	for _, o := range w.objects {
		w.startLocked(o)
	}
	w.startServicesLocked()
	w.mu.Unlock()
	<-ctx.Done()
}

// startLocked runs o's watch under the Run context; w.mu is held.
func (w *ObjectWatcher) startLocked(o *watchedObject) {
	if w.ctx == nil || o.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	o.cancel = cancel
	go o.run(ctx)
}

// podObjects are the config maps and secrets a pod refers to, each once.
func podObjects(pod *corev1.Pod) []objectKey {
	var keys []objectKey
	add := func(kind, name string) {
		if name == "" {
			return
		}
		k := objectKey{kind, pod.Namespace, name}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			add(kindConfigMap, v.ConfigMap.Name)
		case v.Secret != nil:
			add(kindSecret, v.Secret.SecretName)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					add(kindConfigMap, s.ConfigMap.Name)
				}
				if s.Secret != nil {
					add(kindSecret, s.Secret.Name)
				}
			}
		}
	}
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	for _, c := range containers {
		for _, f := range c.EnvFrom {
			if f.ConfigMapRef != nil {
				add(kindConfigMap, f.ConfigMapRef.Name)
			}
			if f.SecretRef != nil {
				add(kindSecret, f.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				add(kindConfigMap, r.Name)
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				add(kindSecret, r.Name)
			}
		}
	}
	return keys
}

// objectKey names a config map or secret.
type objectKey struct{ kind, namespace, name string }

// The kinds of objectKey.
const (
	kindConfigMap = "configmap"
	kindSecret    = "secret"
)

// RegisterPod makes the watcher keep the objects the pod refers to, as
// they are in this version of the pod (a pod registered again drops the
// references its older version had and this one has not).
func (w *ObjectWatcher) RegisterPod(pod *corev1.Pod) {
	keys := podObjects(pod)
	w.mu.Lock()
	defer w.mu.Unlock()
	old, known := w.pods[pod.UID]
	if known && slices.Equal(old, keys) {
		return
	}
	for _, k := range keys {
		o := w.objects[k]
		if o == nil {
			o = w.newWatchedObject(k)
			w.objects[k] = o
			w.startLocked(o)
		}
		o.refs++
	}
	w.pods[pod.UID] = keys
	w.releaseLocked(old)
}

// UnregisterPod drops the pod's references: an object no other pod
// refers to is no longer watched.
func (w *ObjectWatcher) UnregisterPod(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	keys, ok := w.pods[uid]
	if !ok {
		return
	}
	delete(w.pods, uid)
	w.releaseLocked(keys)
}

func (w *ObjectWatcher) releaseLocked(keys []objectKey) {
	for _, k := range keys {
		o := w.objects[k]
		if o == nil {
			continue
		}
		if o.refs--; o.refs > 0 {
			continue
		}
		if o.cancel != nil {
			o.cancel()
		}
		delete(w.objects, k)
	}
}

// Watches is the number of objects watched.
func (w *ObjectWatcher) Watches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.objects)
}

// ConfigMap implements ObjectGetter for the config maps of registered pods.
func (w *ObjectWatcher) ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	obj, err := w.get(ctx, objectKey{kindConfigMap, namespace, name})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ConfigMap), nil
}

// Secret implements ObjectGetter for the secrets of registered pods.
func (w *ObjectWatcher) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	obj, err := w.get(ctx, objectKey{kindSecret, namespace, name})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Secret), nil
}

// Services implements ObjectGetter: the Services of the cluster, from one
// watch of them all (as Kubernetes' kubelet keeps), started on the first
// call; it waits for its first list as get does.
func (w *ObjectWatcher) Services(ctx context.Context) ([]*corev1.Service, error) {
	w.mu.Lock()
	if w.services == nil {
		lw := cache.ListWatchFromClient[*corev1.ServiceList](w.cs.CoreV1().Services(""))
		w.services = cache.NewInformer[*corev1.Service](lw, cache.InformerOptions{
			Resource: schema.GroupResource{Resource: "services"},
			Reflector: cache.ReflectorOptions{OnError: func(err error) {
				klog.Background().V(2).Info("Failed to list or watch Services for pods' environment variables; retrying", "err", err)
			}},
		})
		w.startServicesLocked()
	}
	inf := w.services
	w.mu.Unlock()
	if !inf.HasSynced() {
		wctx, cancel := context.WithTimeout(ctx, syncWait)
		defer cancel()
		if !cache.WaitForCacheSync(wctx, inf.HasSynced) {
			return nil, fmt.Errorf("services: watch not synced: %w", context.Cause(wctx))
		}
	}
	return inf.GetIndexer().List(), nil
}

// startServicesLocked runs the Service watch under the Run context once
// both exist; w.mu is held.
func (w *ObjectWatcher) startServicesLocked() {
	if w.ctx == nil || w.services == nil || w.servicesStarted {
		return
	}
	w.servicesStarted = true
	go w.services.Run(w.ctx)
}

// syncWait is how long a read waits for a new watch's first list before
// it fails (the pod's sync retries it).
const syncWait = 30 * time.Second

// get returns the watched object of key once its watch has listed it, or
// NotFound.
func (w *ObjectWatcher) get(ctx context.Context, key objectKey) (runtime.Object, error) {
	w.mu.Lock()
	o := w.objects[key]
	w.mu.Unlock()
	gr := schema.GroupResource{Resource: key.kind + "s"}
	if o == nil {
		return nil, fmt.Errorf("%s %s/%s: no pod registered with the kubelet refers to it", key.kind, key.namespace, key.name)
	}
	if !o.synced() {
		wctx, cancel := context.WithTimeout(ctx, syncWait)
		defer cancel()
		if !cache.WaitForCacheSync(wctx, o.synced) {
			return nil, fmt.Errorf("%s %s/%s: watch not synced: %w", key.kind, key.namespace, key.name, context.Cause(wctx))
		}
	}
	obj, ok := o.get()
	if !ok {
		return nil, apierrors.NewNotFound(gr, key.name)
	}
	return obj, nil
}

// newWatchedObject makes the watch of one object: an informer listing
// and watching its namespace's objects of that kind under the field
// selector metadata.name=NAME.
func (w *ObjectWatcher) newWatchedObject(k objectKey) *watchedObject {
	byName := func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + k.name }
	if k.kind == kindSecret {
		lw := cache.ListWatchFromClient[*corev1.SecretList](w.cs.CoreV1().Secrets(k.namespace))
		return newWatchedInformer[*corev1.Secret](k, cache.TweakListOptions(lw, byName))
	}
	lw := cache.ListWatchFromClient[*corev1.ConfigMapList](w.cs.CoreV1().ConfigMaps(k.namespace))
	return newWatchedInformer[*corev1.ConfigMap](k, cache.TweakListOptions(lw, byName))
}

func newWatchedInformer[T cache.Object](k objectKey, lw cache.ListerWatcher) *watchedObject {
	inf := cache.NewInformer[T](lw, cache.InformerOptions{
		Resource: schema.GroupResource{Resource: k.kind + "s"},
		Reflector: cache.ReflectorOptions{OnError: func(err error) {
			klog.Background().V(2).Info("Failed to list or watch an object pods refer to; retrying", "kind", k.kind, "namespace", k.namespace, "name", k.name, "err", err)
		}},
	})
	return &watchedObject{
		run:    inf.Run,
		synced: inf.HasSynced,
		get: func() (runtime.Object, bool) {
			obj, ok := inf.GetIndexer().GetByKey(cache.ObjectKey(k.namespace, k.name))
			return obj, ok
		},
	}
}
