package controlplane

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/klog/v2"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// AutomanagedLabel marks the APIServices the API server made itself;
// "onstart" ones are those of its built-in group versions.
const AutomanagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// apiPriority is the place of a group version in discovery.
type apiPriority struct{ group, version int32 }

// builtinPriorities are Kubernetes' priorities of the built-in group
// versions, which their local APIServices carry.
func builtinPriorities() map[schema.GroupVersion]apiPriority {
	return map[schema.GroupVersion]apiPriority{
		{Group: "", Version: "v1"}:                             {18000, 1},
		{Group: "apps", Version: "v1"}:                         {17800, 15},
		{Group: "events.k8s.io", Version: "v1"}:                {17750, 15},
		{Group: "authentication.k8s.io", Version: "v1"}:        {17700, 15},
		{Group: "authorization.k8s.io", Version: "v1"}:         {17600, 15},
		{Group: "autoscaling", Version: "v1"}:                  {17500, 15},
		{Group: "autoscaling", Version: "v2"}:                  {17500, 30},
		{Group: "batch", Version: "v1"}:                        {17400, 15},
		{Group: "certificates.k8s.io", Version: "v1"}:          {17300, 15},
		{Group: "networking.k8s.io", Version: "v1"}:            {17200, 15},
		{Group: "policy", Version: "v1"}:                       {17100, 15},
		{Group: "rbac.authorization.k8s.io", Version: "v1"}:    {17000, 15},
		{Group: "storage.k8s.io", Version: "v1"}:               {16800, 15},
		{Group: "admissionregistration.k8s.io", Version: "v1"}: {16700, 15},
		{Group: "apiextensions.k8s.io", Version: "v1"}:         {16700, 15},
		{Group: "scheduling.k8s.io", Version: "v1"}:            {16600, 15},
		{Group: "coordination.k8s.io", Version: "v1"}:          {16500, 15},
		{Group: "node.k8s.io", Version: "v1"}:                  {16300, 15},
		{Group: "discovery.k8s.io", Version: "v1"}:             {16200, 15},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}: {16100, 21},
		{Group: "resource.k8s.io", Version: "v1"}:              {16200, 21},
	}
}

// localAPIServices are the APIServices of the group versions the API
// server serves itself, named VERSION.GROUP ("v1." for the core group),
// with no service.
func (in *Instance) localAPIServices() []*apiregistrationv1.APIService {
	priorities := builtinPriorities()
	var out []*apiregistrationv1.APIService
	for _, g := range in.Groups {
		gv := g.GroupVersion
		p, ok := priorities[gv]
		if !ok {
			// As in Kubernetes, a group version without a place gets no
			// APIService: apiregistration.k8s.io itself, which the
			// aggregator serves and lists first.
			continue
		}
		out = append(out, &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group, Labels: map[string]string{AutomanagedLabel: "onstart"}},
			Spec:       apiregistrationv1.APIServiceSpec{Group: gv.Group, Version: gv.Version, GroupPriorityMinimum: p.group, VersionPriority: p.version},
		})
	}
	return out
}

// EnsureLocalAPIServices creates the local APIServices missing, brings
// back the spec of those changed, and marks each Available, as
// Kubernetes' aggregator does for the group versions it serves locally.
func (in *Instance) EnsureLocalAPIServices(ctx context.Context) error {
	for _, want := range in.localAPIServices() {
		if err := in.ensureAPIService(ctx, want); err != nil {
			return err
		}
	}
	return nil
}

func (in *Instance) ensureAPIService(ctx context.Context, want *apiregistrationv1.APIService) error {
	st := in.apiServices
	in.Scheme.Default(want)
	var cur *apiregistrationv1.APIService
	created, err := st.Create(ctx, want.DeepCopy(), nil, &metav1.CreateOptions{})
	switch {
	case err == nil:
		cur = created.(*apiregistrationv1.APIService)
	case apierrors.IsAlreadyExists(err):
		obj, err := st.Get(ctx, want.Name, &metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get apiservice %s: %w", want.Name, err)
		}
		cur = obj.(*apiregistrationv1.APIService)
		if cur.Spec.Service == nil && (!reflect.DeepEqual(cur.Spec, want.Spec) || cur.Labels[AutomanagedLabel] != "onstart") {
			next := cur.DeepCopy()
			next.Spec = want.Spec
			if next.Labels == nil {
				next.Labels = map[string]string{}
			}
			next.Labels[AutomanagedLabel] = "onstart"
			updated, _, err := st.Update(ctx, want.Name, replaceWith{next}, nil, nil, false, &metav1.UpdateOptions{})
			if err != nil {
				return fmt.Errorf("reconcile apiservice %s: %w", want.Name, err)
			}
			cur = updated.(*apiregistrationv1.APIService)
		}
	default:
		return fmt.Errorf("create apiservice %s: %w", want.Name, err)
	}
	if cur.Spec.Service != nil {
		return nil // replaced by an aggregated server: not ours to mark
	}
	for _, c := range cur.Status.Conditions {
		if c.Type == apiregistrationv1.Available && c.Status == apiregistrationv1.ConditionTrue && c.Reason == "Local" {
			return nil
		}
	}
	next := cur.DeepCopy()
	next.Status.Conditions = []apiregistrationv1.APIServiceCondition{{
		Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, LastTransitionTime: metav1.Now(),
		Reason: "Local", Message: "Local APIServices are always available",
	}}
	if _, _, err := in.apiServiceStatus.Update(ctx, want.Name, replaceWith{next}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("mark apiservice %s available: %w", want.Name, err)
	}
	return nil
}

// BootstrapInterval is how often RunBootstrapObjects brings the local
// APIServices and the flowcontrol configuration back, as Kubernetes
// checks its APF configuration every minute.
const BootstrapInterval = time.Minute

// RunBootstrapObjects keeps the local APIServices and the API priority
// and fairness configuration every interval until ctx ends: a deleted
// object comes back, and one changed is restored by the auto-update
// rules. A failed round is logged and retried at the next.
func (in *Instance) RunBootstrapObjects(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := in.EnsureLocalAPIServices(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Cannot keep the local APIServices")
		}
		if err := in.EnsureFlowControl(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Cannot keep the flowcontrol configuration")
		}
	}
}
