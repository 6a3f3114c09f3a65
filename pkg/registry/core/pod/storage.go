package pod

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// Storage is the storage of pods and their subresources.
type Storage struct {
	Pod      *REST
	Status   *strategy.StatusREST
	Binding  *BindingREST
	Eviction *EvictionREST
	// EphemeralContainers adds ephemeral containers to running pods.
	EphemeralContainers *strategy.StatusREST
	// Resize changes the resources of a pod's containers in place.
	Resize *strategy.StatusREST
	// Log, Exec and PortForward proxy to the pod's kubelet; nil without
	// one.
	Log         *LogREST
	Exec        *StreamREST
	Attach      *StreamREST
	PortForward *StreamREST
	// Proxy reaches the pod's IP.
	Proxy *proxy.REST
}

// REST serves pods.
type REST struct {
	*generic.Store
}

// NewStorage returns the storage of pods. disruptions checks evictions
// against disruption budgets; nil allows every eviction. kubelets finds the
// kubelet pods/log and pods/exec proxy to; nil leaves those subresources
// out. Admission (Priority, ServiceAccount, NodeRestriction) is the chain
// of opts.
func NewStorage(opts generic.StoreOptions, disruptions DisruptionChecker, kubelets KubeletConnectionGetter) (*Storage, error) {
	s := NewStrategy()
	r := strategy.Of[corev1.Pod, corev1.PodList](corev1.Resource("pods"), "pod", s.Strategy).DeletedBy(s)
	store, err := strategy.NewStore(opts, r.Short("po").InCategories("all").Selectable(GetAttrs).ReturnsDeleted())
	if err != nil {
		return nil, err
	}
	st := &Storage{
		Pod:      &REST{Store: store},
		Status:   strategy.NewStatusREST(store, NewStatusStrategy()),
		Binding:  &BindingREST{OneKind: bindings, store: store},
		Eviction: &EvictionREST{OneKind: rest.OneKind[*policyv1.Eviction]{Kind: evictionKind, Empty: func() *policyv1.Eviction { return &policyv1.Eviction{} }}, store: store, disruptions: disruptions},
		Proxy:    NewProxyREST(store),

		EphemeralContainers: NewEphemeralContainersREST(store),
		Resize:              NewResizeREST(store),
	}
	if kubelets != nil {
		st.Log = &LogREST{pods: store, kubelet: kubelets}
		st.Exec = NewExecREST(store, kubelets, store.Admission)
		st.Attach = NewAttachREST(store, kubelets, store.Admission)
		st.PortForward = NewPortForwardREST(store, kubelets, store.Admission)
	}
	return st, nil
}

// podKey is the storage key of the pod name in ctx's namespace.
func podKey(ctx context.Context, store *generic.Store, name string) (string, error) {
	ns := apirequest.NamespaceValue(ctx)
	if ns == "" {
		return "", apierrors.NewBadRequest("Namespace parameter required.")
	}
	return store.KeyPrefix() + "/" + ns + "/" + name, nil
}

// BindingREST serves pods/binding: it assigns a pod to a node once.
type BindingREST struct {
	rest.OneKind[*corev1.Binding]
	store *generic.Store
}

var _ rest.NamedCreater = (*BindingREST)(nil)

// bindings is the body of pods/binding and of the bindings collection.
var bindings = rest.OneKind[*corev1.Binding]{Kind: bindingKind, Empty: func() *corev1.Binding { return &corev1.Binding{} }}

var (
	bindingResource = schema.GroupResource{Resource: "pods/binding"}
	bindingKind     = corev1.SchemeGroupVersion.WithKind("Binding")
	evictionKind    = policyv1.SchemeGroupVersion.WithKind("Eviction")
)

// admitSubresource runs the mutating admission of the create of obj, of
// kind, at the subresource of pod name, then validate (nil for none). It
// returns the attributes for the validating phase.
func admitSubresource(ctx context.Context, adm rest.Admission, subresource string, kind schema.GroupVersionKind, name string, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (*rest.Attributes, error) {
	dryRun := opts != nil && slices.Contains(opts.DryRun, metav1.DryRunAll)
	a := rest.NewAttributes(ctx, rest.OperationCreate, corev1.Resource("pods"), subresource, kind.GroupKind(), name, obj, nil, dryRun, opts)
	a.Kind = kind
	if err := rest.Admit(ctx, adm, a); err != nil {
		return nil, err
	}
	if validate != nil {
		if err := validate(ctx, obj); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Create implements rest.NamedCreater: it sets spec.nodeName, the
// binding's annotations and the PodScheduled condition of pod name.
func (r *BindingREST) Create(ctx context.Context, name string, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	binding, err := r.NamedBody(obj, name)
	if err != nil {
		return nil, err
	}
	if errs := validation.ValidatePodBinding(binding); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Kind: "Binding"}, binding.Name, errs)
	}
	attrs, err := admitSubresource(ctx, r.store.Admission, "binding", bindingKind, name, binding, validate, opts)
	if err != nil {
		return nil, err
	}
	if err := rest.Validate(ctx, r.store.Admission, attrs); err != nil {
		return nil, err
	}
	key, err := podKey(ctx, r.store, name)
	if err != nil {
		return nil, err
	}
	assign := func(current runtime.Object) (runtime.Object, error) {
		pod, ok := current.(*corev1.Pod)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("not a pod: %T", current))
		}
		if uid := binding.UID; uid != "" && uid != pod.UID {
			return nil, apierrors.NewConflict(bindingResource, name, fmt.Errorf("the UID in the binding (%s) does not match the UID of the pod (%s)", uid, pod.UID))
		}
		if pod.DeletionTimestamp != nil {
			return nil, apierrors.NewConflict(bindingResource, name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", name))
		}
		if pod.Spec.NodeName != "" {
			return nil, apierrors.NewConflict(bindingResource, name, fmt.Errorf("pod %s is already assigned to node %q", name, pod.Spec.NodeName))
		}
		pod.Spec.NodeName = binding.Target.Name
		for k, v := range binding.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))})
		return pod, nil
	}
	if attrs.DryRun {
		current, err := r.store.Storage.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, strategy.StorageError(err, r.store.DefaultQualifiedResource, name)
		}
		if _, err := assign(current.DeepCopyObject()); err != nil {
			return nil, err
		}
	} else if _, err := r.store.Storage.GuaranteedUpdate(ctx, key, nil, false, assign, nil); err != nil {
		return nil, strategy.StorageError(err, r.store.DefaultQualifiedResource, name)
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// setCondition replaces or appends the condition of c's type.
func setCondition(s *corev1.PodStatus, c corev1.PodCondition) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == c.Type {
			if s.Conditions[i].Status == c.Status {
				c.LastTransitionTime = s.Conditions[i].LastTransitionTime
			}
			s.Conditions[i] = c
			return
		}
	}
	s.Conditions = append(s.Conditions, c)
}

// DisruptionChecker decides whether a pod may be evicted now, recording
// the disruption it allows (a PodDisruptionBudget's disruptionsAllowed).
// It returns unhealthy when it allowed the eviction without taking a
// disruption because the pod is not healthy: the deletion must then find
// the pod unchanged.
type DisruptionChecker interface {
	CheckEviction(ctx context.Context, pod *corev1.Pod, dryRun bool) (unhealthy bool, err error)
}

// EvictionREST serves pods/eviction: a policy/v1 Eviction deletes the pod
// with the eviction's delete options when the disruption budgets allow it.
type EvictionREST struct {
	rest.OneKind[*policyv1.Eviction]
	store       *generic.Store
	disruptions DisruptionChecker
}

var (
	_ rest.NamedCreater = (*EvictionREST)(nil)
	_ rest.KindProvider = (*EvictionREST)(nil)
)

// Create implements rest.NamedCreater.
func (r *EvictionREST) Create(ctx context.Context, name string, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	eviction, err := r.NamedBody(obj, name)
	if err != nil {
		return nil, err
	}
	attrs, err := admitSubresource(ctx, r.store.Admission, "eviction", evictionKind, name, eviction, validate, opts)
	if err != nil {
		return nil, err
	}
	dryRun := attrs.DryRun
	deleteOpts := &metav1.DeleteOptions{}
	if eviction.DeleteOptions != nil {
		deleteOpts = eviction.DeleteOptions.DeepCopy()
	}
	if dryRun {
		deleteOpts.DryRun = []string{metav1.DryRunAll}
	}
	// An eviction is a dry run also when its delete options say so (as
	// kubectl drain --dry-run=server sends it): the budget is then only
	// checked, not taken.
	dryRun = dryRun || len(deleteOpts.DryRun) > 0
	current, err := r.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod := current.(*corev1.Pod)
	// NodeRestriction reads the pod itself, as a webhook would.
	if err := rest.Validate(ctx, r.store.Admission, attrs); err != nil {
		return nil, err
	}
	if pod.DeletionTimestamp != nil {
		// Already going: the eviction has nothing more to do.
		return &metav1.Status{Status: metav1.StatusSuccess}, nil
	}
	budgeted := pod.Status.Phase == corev1.PodRunning || pod.Status.Phase == corev1.PodUnknown
	unhealthy := false
	if budgeted && r.disruptions != nil {
		if unhealthy, err = r.disruptions.CheckEviction(ctx, pod, dryRun); err != nil {
			return nil, err
		}
	}
	if deleteOpts.Preconditions == nil {
		deleteOpts.Preconditions = &metav1.Preconditions{UID: &pod.UID}
		if unhealthy {
			// Evicted because not ready: not if it changed (became
			// ready) since.
			deleteOpts.Preconditions.ResourceVersion = &pod.ResourceVersion
		}
	}
	if !dryRun {
		if err := r.markDisruptionTarget(ctx, name, deleteOpts.Preconditions); err != nil {
			return nil, err
		}
	}
	if _, _, err := r.store.Delete(ctx, name, nil, deleteOpts); err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// markDisruptionTarget sets the pod's DisruptionTarget condition (reason
// EvictionByEvictionAPI) before its deletion, as Kubernetes does, when the
// pod still meets pre; a resourceVersion precondition then moves to the
// version this update made.
func (r *EvictionREST) markDisruptionTarget(ctx context.Context, name string, pre *metav1.Preconditions) error {
	key, err := podKey(ctx, r.store, name)
	if err != nil {
		return err
	}
	preconditions := &storage.Preconditions{UID: pre.UID, ResourceVersion: pre.ResourceVersion}
	out, err := r.store.Storage.GuaranteedUpdate(ctx, key, preconditions, false, func(current runtime.Object) (runtime.Object, error) {
		pod, ok := current.(*corev1.Pod)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("not a pod: %T", current))
		}
		setCondition(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: metav1.Now()})
		return pod, nil
	}, nil)
	if err != nil {
		return strategy.StorageError(err, r.store.DefaultQualifiedResource, name)
	}
	if pod, ok := out.(*corev1.Pod); ok && pre.ResourceVersion != nil {
		pre.ResourceVersion = &pod.ResourceVersion
	}
	return nil
}
