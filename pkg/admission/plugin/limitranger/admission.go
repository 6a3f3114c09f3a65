// Package limitranger is the LimitRanger admission plugin: it fills in the
// default requests and limits of a new pod's containers from the
// namespace's LimitRanges, then refuses pods and claims outside their
// min, max and maxLimitRequestRatio.
package limitranger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/apis/core/quota"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// LimitRangeLister reads the limit ranges of a namespace.
type LimitRangeLister interface {
	ListLimitRanges(ctx context.Context, namespace string) ([]*corev1.LimitRange, error)
}

// Annotation records on a pod which defaults LimitRanger set.
const Annotation = "kubernetes.io/limit-ranger"

// Plugin is LimitRanger admission, of both phases.
type Plugin struct {
	LimitRanges LimitRangeLister
}

var (
	_ admission.MutationInterface   = (*Plugin)(nil)
	_ admission.ValidationInterface = (*Plugin)(nil)
)

// New returns LimitRanger admission over the limit ranges lister reads.
func New(lister LimitRangeLister) *Plugin { return &Plugin{LimitRanges: lister} }

// Handles implements admission.Interface: pod creates and claim creates
// and updates.
func (p *Plugin) Handles(a *rest.Attributes) bool {
	if a.Subresource != "" || a.Object == nil || a.Namespace == "" {
		return false
	}
	switch a.Object.(type) {
	case *corev1.Pod:
		return a.Operation == rest.OperationCreate
	case *corev1.PersistentVolumeClaim:
		return a.Operation == rest.OperationCreate || a.Operation == rest.OperationUpdate
	}
	return false
}

func (p *Plugin) items(ctx context.Context, namespace string, t corev1.LimitType) ([]corev1.LimitRangeItem, error) {
	ranges, err := p.LimitRanges.ListLimitRanges(ctx, namespace)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("list limit ranges of %s: %w", namespace, err))
	}
	slices.SortFunc(ranges, func(x, y *corev1.LimitRange) int { return strings.Compare(x.Name, y.Name) })
	var out []corev1.LimitRangeItem
	for _, lr := range ranges {
		for _, item := range lr.Spec.Limits {
			if item.Type == t {
				out = append(out, item)
			}
		}
	}
	return out, nil
}

// Admit implements admission.MutationInterface: the Container items'
// defaults go into each container that sets no request or limit of that
// resource.
func (p *Plugin) Admit(ctx context.Context, a *rest.Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	items, err := p.items(ctx, a.Namespace, corev1.LimitTypeContainer)
	if err != nil || len(items) == 0 {
		return err
	}
	var set []string
	apply := func(cs []corev1.Container) {
		for i := range cs {
			c := &cs[i]
			for _, item := range items {
				set = append(set, fill(&c.Resources.Requests, item.DefaultRequest, "request", c.Name)...)
				set = append(set, fill(&c.Resources.Limits, item.Default, "limit", c.Name)...)
			}
		}
	}
	apply(pod.Spec.InitContainers)
	apply(pod.Spec.Containers)
	if len(set) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[Annotation] = "LimitRanger plugin set: " + strings.Join(set, "; ")
	}
	return nil
}

// fill sets in *dst the amounts of defaults it lacks, and describes them.
func fill(dst *corev1.ResourceList, defaults corev1.ResourceList, what, container string) []string {
	var set []string
	for _, name := range quota.Names(defaults) {
		if _, ok := (*dst)[name]; ok {
			continue
		}
		if *dst == nil {
			*dst = corev1.ResourceList{}
		}
		(*dst)[name] = defaults[name].DeepCopy()
		set = append(set, fmt.Sprintf("%s %s for container %s", name, what, container))
	}
	return set
}

// Validate implements admission.ValidationInterface.
func (p *Plugin) Validate(ctx context.Context, a *rest.Attributes) error {
	var errs []string
	switch o := a.Object.(type) {
	case *corev1.Pod:
		items, err := p.items(ctx, a.Namespace, corev1.LimitTypeContainer)
		if err != nil {
			return err
		}
		for _, item := range items {
			for _, cs := range [][]corev1.Container{o.Spec.InitContainers, o.Spec.Containers} {
				for _, c := range cs {
					errs = append(errs, check(item, string(corev1.LimitTypeContainer), c.Resources.Requests, c.Resources.Limits)...)
				}
			}
		}
		podItems, err := p.items(ctx, a.Namespace, corev1.LimitTypePod)
		if err != nil {
			return err
		}
		if len(podItems) > 0 {
			requests, limits := quota.PodRequirements(o)
			for _, item := range podItems {
				errs = append(errs, check(item, string(corev1.LimitTypePod), requests, limits)...)
			}
		}
	case *corev1.PersistentVolumeClaim:
		items, err := p.items(ctx, a.Namespace, corev1.LimitTypePersistentVolumeClaim)
		if err != nil {
			return err
		}
		requests := o.Spec.Resources.Requests
		for _, item := range items {
			t := string(corev1.LimitTypePersistentVolumeClaim)
			for _, name := range quota.Names(item.Min) {
				errs = appendErr(errs, minConstraint(t, name, item.Min[name], requests, nil))
			}
			for _, name := range quota.Names(item.Max) {
				if req, ok := requests[name]; ok && req.Cmp(item.Max[name]) > 0 {
					max := item.Max[name]
					errs = append(errs, fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, t, max.String(), req.String()))
				}
			}
		}
	default:
		return nil
	}
	if len(errs) == 0 {
		return nil
	}
	msg := errs[0]
	if len(errs) > 1 {
		msg = "[" + strings.Join(errs, ", ") + "]"
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("%s", msg))
}

func appendErr(errs []string, msg string) []string {
	if msg == "" {
		return errs
	}
	return append(errs, msg)
}

// check holds requests and limits of one container or pod to an item.
func check(item corev1.LimitRangeItem, t string, requests, limits corev1.ResourceList) []string {
	var errs []string
	for _, name := range quota.Names(item.Min) {
		errs = appendErr(errs, minConstraint(t, name, item.Min[name], requests, limits))
	}
	for _, name := range quota.Names(item.Max) {
		errs = appendErr(errs, maxConstraint(t, name, item.Max[name], requests, limits))
	}
	for _, name := range quota.Names(item.MaxLimitRequestRatio) {
		errs = appendErr(errs, ratioConstraint(t, name, item.MaxLimitRequestRatio[name], requests, limits))
	}
	return errs
}

func minConstraint(t string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	if !reqOK {
		return fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", name, t, enforced.String())
	}
	if req.Cmp(enforced) < 0 {
		return fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	if limOK && lim.Cmp(enforced) < 0 {
		return fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	}
	return ""
}

func maxConstraint(t string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	if !limOK {
		return fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", name, t, enforced.String())
	}
	if lim.Cmp(enforced) > 0 {
		return fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	}
	if reqOK && req.Cmp(enforced) > 0 {
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	return ""
}

func ratioConstraint(t string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	if !reqOK || req.IsZero() {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, t, enforced.String())
	}
	if !limOK || lim.IsZero() {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, t, enforced.String())
	}
	ratio := float64(lim.MilliValue()) / float64(req.MilliValue())
	if ratio*1000 > float64(enforced.MilliValue()) {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, t, enforced.String(), ratio)
	}
	return ""
}
