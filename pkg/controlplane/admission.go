package controlplane

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/plugin/defaultstorageclass"
	"kubecore.io/kubecore/pkg/admission/plugin/limitranger"
	"kubecore.io/kubecore/pkg/admission/plugin/noderestriction"
	"kubecore.io/kubecore/pkg/admission/plugin/persistentvolumeclaimresize"
	"kubecore.io/kubecore/pkg/admission/plugin/podsecurity"
	"kubecore.io/kubecore/pkg/admission/plugin/policy"
	"kubecore.io/kubecore/pkg/admission/plugin/priority"
	"kubecore.io/kubecore/pkg/admission/plugin/resourcequota"
	"kubecore.io/kubecore/pkg/admission/plugin/runtimeclass"
	"kubecore.io/kubecore/pkg/admission/plugin/serviceaccount"
	"kubecore.io/kubecore/pkg/admission/plugin/storageobjectinuseprotection"
	"kubecore.io/kubecore/pkg/admission/plugin/taintnodesbycondition"
	admissionwebhook "kubecore.io/kubecore/pkg/admission/plugin/webhook"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// newAdmission assembles the admission chain every Store's writes pass,
// in Kubernetes' order of the plugins kubecore has: LimitRanger defaults
// and bounds pods and claims, Priority, RuntimeClass (the class's overhead
// and scheduling, a missing class refused) and ServiceAccount mutate new pods,
// DefaultStorageClass new claims, NodeRestriction validates what kubelets
// write, PersistentVolumeClaimResize refuses growing claims of classes
// that do not allow it, and ResourceQuota comes last, charging quotas only
// for writes every other plugin let through. TaintNodesByCondition taints
// new nodes not-ready, StorageObjectInUseProtection puts the protection
// finalizers on new claims and volumes, and PodSecurity applies the
// namespaces' Pod Security Standards. Admission policies and webhooks come
// after the built-in plugins of each phase, policies first, as in
// Kubernetes: MutatingAdmissionPolicies and mutating webhooks after the
// built-in mutations, ValidatingAdmissionPolicies and validating webhooks
// (the Chain's Validate runs after the strategy's schema validation) after
// the built-in validations, all before ResourceQuota. The plugins read the
// objects through the watch cache. The plugins named in disabled (by their
// Kubernetes names) are left out, as --disable-admission-plugins does.
func newAdmission(objects *objectReader, webhooks admissionwebhook.Plugins, policies admissionPolicies, disabled []string) admission.Chain {
	return withoutPlugins(admission.Chain{
		limitranger.New(objects),
		priority.New(objects),
		runtimeclass.New(objects),
		serviceaccount.New(objects),
		&defaultstorageclass.Plugin{Classes: objects},
		storageobjectinuseprotection.Plugin{},
		&noderestriction.Plugin{Objects: objects},
		taintnodesbycondition.Plugin{},
		&podsecurity.Plugin{Objects: objects},
		&persistentvolumeclaimresize.Plugin{Classes: objects},
		policies.mutating,
		webhooks.Mutating,
		policies.validating,
		webhooks.Validating,
		resourcequota.New(objects),
	}, disabled)
}

// namedPlugin is a plugin that can be disabled by its name.
type namedPlugin interface{ Name() string }

// DisableableAdmissionPlugins returns the names of the plugins
// Config.DisableAdmissionPlugins may name.
func DisableableAdmissionPlugins() []string {
	return []string{podsecurity.Name, storageobjectinuseprotection.Name, taintnodesbycondition.Name}
}

// withoutPlugins drops from chain the plugins named in disabled.
func withoutPlugins(chain admission.Chain, disabled []string) admission.Chain {
	return slices.DeleteFunc(chain, func(p admission.Interface) bool {
		n, ok := p.(namedPlugin)
		return ok && slices.Contains(disabled, n.Name())
	})
}

// admissionPolicies are the plugins of MutatingAdmissionPolicies and
// ValidatingAdmissionPolicies, and what they read; sources.in is set once
// the Instance exists, before any write.
type admissionPolicies struct {
	mutating   *policy.Mutating
	validating *policy.Validating
	sources    *policySources
}

func newAdmissionPolicies(scheme *runtime.Scheme, types *fieldmanager.TypeConverter) (admissionPolicies, error) {
	src := &policySources{}
	mutating, err := policy.NewMutating(src, src, scheme, types, src.equivalents)
	if err != nil {
		return admissionPolicies{}, err
	}
	validating, err := policy.NewValidating(src, src, scheme, src.equivalents)
	if err != nil {
		return admissionPolicies{}, err
	}
	return admissionPolicies{mutating: mutating, validating: validating, sources: src}, nil
}

// policySources reads what admission policies need through the watch
// cache: the policies, their bindings, namespaces and parameters of any
// built-in kind. It finds the stores in the Instance's groups at its
// first use (every group is built by then).
type policySources struct {
	in *Instance

	once                     sync.Once
	namespaces               cached[*corev1.Namespace]
	validatingPolicies       cached[*admissionregistrationv1.ValidatingAdmissionPolicy]
	validatingPolicyBindings cached[*admissionregistrationv1.ValidatingAdmissionPolicyBinding]
	mutatingPolicies         cached[*admissionregistrationv1.MutatingAdmissionPolicy]
	mutatingPolicyBindings   cached[*admissionregistrationv1.MutatingAdmissionPolicyBinding]
	// served maps a built-in group/resource to the versions it is served in.
	served map[schema.GroupResource][]string
}

var (
	_ policy.Objects = (*policySources)(nil)
	_ policy.Params  = (*policySources)(nil)
)

func (s *policySources) init() {
	s.once.Do(func() {
		s.served = map[schema.GroupResource][]string{}
		for _, g := range s.in.Groups {
			for path := range g.Storage {
				if strings.Contains(path, "/") {
					continue
				}
				gr := schema.GroupResource{Group: g.GroupVersion.Group, Resource: path}
				s.served[gr] = append(s.served[gr], g.GroupVersion.Version)
				store := storeOf(g.Storage, path)
				switch gr {
				case corev1.Resource("namespaces"):
					s.namespaces = cached[*corev1.Namespace]{s.in.namespaces.Store}
				case admissionregistrationv1.Resource("validatingadmissionpolicies"):
					s.validatingPolicies = cached[*admissionregistrationv1.ValidatingAdmissionPolicy]{store}
				case admissionregistrationv1.Resource("validatingadmissionpolicybindings"):
					s.validatingPolicyBindings = cached[*admissionregistrationv1.ValidatingAdmissionPolicyBinding]{store}
				case admissionregistrationv1.Resource("mutatingadmissionpolicies"):
					s.mutatingPolicies = cached[*admissionregistrationv1.MutatingAdmissionPolicy]{store}
				case admissionregistrationv1.Resource("mutatingadmissionpolicybindings"):
					s.mutatingPolicyBindings = cached[*admissionregistrationv1.MutatingAdmissionPolicyBinding]{store}
				}
			}
		}
	})
}

func listOf[T runtime.Object](ctx context.Context, s *policySources, c *cached[T]) ([]T, error) {
	s.init()
	if c.store == nil {
		return nil, nil
	}
	return c.list(ctx, "", nil)
}

func (s *policySources) ValidatingAdmissionPolicies(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	return listOf(ctx, s, &s.validatingPolicies)
}

func (s *policySources) ValidatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	return listOf(ctx, s, &s.validatingPolicyBindings)
}

func (s *policySources) MutatingAdmissionPolicies(ctx context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicy, error) {
	return listOf(ctx, s, &s.mutatingPolicies)
}

func (s *policySources) MutatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
	return listOf(ctx, s, &s.mutatingPolicyBindings)
}

// Namespace reads through to etcd when the cache misses: a namespace
// created an instant ago is found.
func (s *policySources) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	s.init()
	if s.namespaces.store == nil {
		return nil, nil
	}
	return s.namespaces.get(ctx, "", name, true)
}

// equivalents are the served versions of a built-in resource: what a
// write without a version (the API server's own) is matched as, and what
// matchPolicy Equivalent matches.
func (s *policySources) equivalents(gvr schema.GroupVersionResource) []schema.GroupVersionResource {
	s.init()
	var out []schema.GroupVersionResource
	for _, v := range s.served[gvr.GroupResource()] {
		out = append(out, gvr.GroupResource().WithVersion(v))
	}
	return out
}

// storage is the storage of the built-in kind gvk.
func (s *policySources) storage(gvk schema.GroupVersionKind) (rest.Storage, error) {
	for _, g := range s.in.Groups {
		if g.GroupVersion != gvk.GroupVersion() {
			continue
		}
		for path, st := range g.Storage {
			if strings.Contains(path, "/") {
				continue
			}
			if k, err := s.in.Scheme.ObjectKind(st.New()); err == nil && k.Kind == gvk.Kind {
				return st, nil
			}
		}
	}
	return nil, fmt.Errorf("kind %s is not served", gvk)
}

func (s *policySources) Namespaced(gvk schema.GroupVersionKind) (bool, error) {
	st, err := s.storage(gvk)
	if err != nil {
		return false, err
	}
	sc, ok := st.(rest.Scoper)
	return ok && sc.NamespaceScoped(), nil
}

func (s *policySources) List(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string, sel labels.Selector) ([]runtime.Object, error) {
	st, err := s.storage(gvk)
	if err != nil {
		return nil, err
	}
	ctx = apirequest.WithNamespace(ctx, namespace)
	if name != "" {
		g, ok := st.(rest.Getter)
		if !ok {
			return nil, fmt.Errorf("kind %s cannot be read", gvk)
		}
		obj, err := g.Get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []runtime.Object{obj}, nil
	}
	l, ok := st.(rest.Lister)
	if !ok {
		return nil, fmt.Errorf("kind %s cannot be listed", gvk)
	}
	list, err := l.List(ctx, &rest.ListOptions{LabelSelector: sel, FieldSelector: fields.Everything(), ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	items := reflect.ValueOf(list).Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return nil, fmt.Errorf("list of %s has no items", gvk)
	}
	out := make([]runtime.Object, 0, items.Len())
	for i := range items.Len() {
		if obj, ok := items.Index(i).Addr().Interface().(runtime.Object); ok {
			out = append(out, obj)
		}
	}
	return out, nil
}

// RunAdmissionPolicyStatus writes the status of every
// ValidatingAdmissionPolicy whose generation its status has not observed
// (observedGeneration and typeChecking), as Kubernetes' status controller
// does, until ctx ends. It follows the policies through a watch of the
// cache and watches again when the watch ends.
func (in *Instance) RunAdmissionPolicyStatus(ctx context.Context) error {
	src := in.policies.sources
	src.init()
	store := src.validatingPolicies.store
	status, _ := in.storageAt(admissionregistrationv1.SchemeGroupVersion, "validatingadmissionpolicies/status").(rest.Updater)
	if store == nil || status == nil {
		return nil
	}
	logger := klog.FromContext(ctx)
	for ctx.Err() == nil {
		w, err := store.Watch(ctx, &rest.ListOptions{ResourceVersion: "0", LabelSelector: labels.Everything(), FieldSelector: fields.Everything()})
		if err != nil {
			logger.Error(err, "Cannot watch ValidatingAdmissionPolicies")
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type != watch.Added && ev.Type != watch.Modified {
				continue
			}
			p, ok := storage.Unwrap(ev.Object).(*admissionregistrationv1.ValidatingAdmissionPolicy)
			if !ok || p.Status.ObservedGeneration == p.Generation {
				continue
			}
			if err := in.writePolicyStatus(ctx, status, p.Name); err != nil && ctx.Err() == nil {
				logger.Error(err, "Cannot write the status of a ValidatingAdmissionPolicy", "policy", p.Name)
			}
		}
		w.Stop()
	}
	return nil
}

// policyStatus is the status update of a policy: its type checking at
// the generation it is read at.
type policyStatus struct{ v *policy.Validating }

var _ rest.UpdatedObjectInfo = policyStatus{}

func (policyStatus) Preconditions() *metav1.Preconditions { return nil }

func (u policyStatus) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	p, ok := old.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok {
		return nil, fmt.Errorf("validatingadmissionpolicies storage returned %T", old)
	}
	p = p.DeepCopy()
	p.Status.ObservedGeneration = p.Generation
	p.Status.TypeChecking = u.v.TypeCheck(p)
	return p, nil
}

func (in *Instance) writePolicyStatus(ctx context.Context, status rest.Updater, name string) error {
	_, _, err := status.Update(ctx, name, policyStatus{v: in.policies.validating}, nil, nil, false, &metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// storageAt is the storage of path ("resource" or "resource/sub") in gv.
func (in *Instance) storageAt(gv schema.GroupVersion, path string) rest.Storage {
	for _, g := range in.Groups {
		if g.GroupVersion == gv {
			return g.Storage[path]
		}
	}
	return nil
}
