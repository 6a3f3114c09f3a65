package namespace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/discovery"
	"kubecore.io/client/metadata"
)

// contentClient deletes and lists the objects of one resource in one
// namespace.
type contentClient interface {
	DeleteCollection(ctx context.Context, gvr schema.GroupVersionResource, namespace string) error
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]metav1.PartialObjectMetadata, error)
	Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error
}

// metadataContent is the contentClient of a metadata client.
type metadataContent struct{ md *metadata.Client }

var _ contentClient = metadataContent{}

// background is the propagation of every delete: dependents go after.
func background() metav1.DeleteOptions {
	p := metav1.DeletePropagationBackground
	return metav1.DeleteOptions{PropagationPolicy: &p}
}

func (m metadataContent) DeleteCollection(ctx context.Context, gvr schema.GroupVersionResource, namespace string) error {
	return m.md.Resource(gvr).Namespace(namespace).DeleteCollection(ctx, background(), metav1.ListOptions{})
}

func (m metadataContent) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]metav1.PartialObjectMetadata, error) {
	l, err := m.md.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (m metadataContent) Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error {
	return m.md.Resource(gvr).Namespace(namespace).Delete(ctx, name, background())
}

// contentDeleter deletes every namespaced object of a namespace.
type contentDeleter struct {
	disco   Discoverer
	content contentClient
	now     func() time.Time
}

// target is one namespaced resource to empty.
type target struct {
	gvr              schema.GroupVersionResource
	deleteCollection bool
}

// result is what one pass of deletion found.
type result struct {
	discoveryErr error
	gvParseErrs  []error
	deleteErrs   []error
	// remaining counts the objects left per resource, and finalizers the
	// objects left per finalizer.
	remaining  map[schema.GroupVersionResource]int
	finalizers map[string]int
	// estimate is how long the graceful deletions under way still take.
	estimate time.Duration
}

// deletableResources picks, from discovery, the namespaced resources that
// can be listed and deleted; subresources are skipped. Group versions that
// do not parse are reported.
func deletableResources(lists []*metav1.APIResourceList) ([]target, []error) {
	var out []target
	var errs []error
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			errs = append(errs, fmt.Errorf("parse group version %q: %w", l.GroupVersion, err))
			continue
		}
		for _, r := range l.APIResources {
			if !r.Namespaced || strings.Contains(r.Name, "/") || !r.Verbs.Has("list") {
				continue
			}
			if !r.Verbs.Has("delete") && !r.Verbs.Has("deletecollection") {
				continue
			}
			out = append(out, target{gvr: gv.WithResource(r.Name), deleteCollection: r.Verbs.Has("deletecollection")})
		}
	}
	return out, errs
}

// deleteContent deletes every namespaced object of namespace once and
// counts what is left.
func (d *contentDeleter) deleteContent(ctx context.Context, namespace string) *result {
	res := &result{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
	lists, err := d.disco.ServerPreferredResources(ctx)
	res.discoveryErr = err
	targets, gvErrs := deletableResources(lists)
	res.gvParseErrs = gvErrs

	// Pods go first, and the rest only once they are gone, as Kubernetes
	// orders a namespace's deletion: a pod still running keeps the
	// ConfigMaps, Secrets and claims it uses.
	pods, rest := splitPods(targets)
	if d.emptyTargets(ctx, namespace, pods, res); res.left() {
		return res
	}
	d.emptyTargets(ctx, namespace, rest, res)
	return res
}

// splitPods separates the pods from the other targets.
func splitPods(targets []target) (pods, rest []target) {
	for _, t := range targets {
		if t.gvr.Group == "" && t.gvr.Resource == "pods" {
			pods = append(pods, t)
		} else {
			rest = append(rest, t)
		}
	}
	return pods, rest
}

// emptyTargets empties the targets in parallel and adds what is left to res.
func (d *contentDeleter) emptyTargets(ctx context.Context, namespace string, targets []target, res *result) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Go(func() {
			left, err := d.emptyResource(ctx, namespace, t)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.deleteErrs = append(res.deleteErrs, err)
			}
			for _, obj := range left {
				res.remaining[t.gvr]++
				for _, f := range obj.Finalizers {
					res.finalizers[f]++
				}
				if dt := obj.DeletionTimestamp; dt != nil {
					if wait := dt.Sub(d.now()); wait > res.estimate {
						res.estimate = wait
					}
				}
			}
		})
	}
	wg.Wait()
}

// emptyResource deletes the objects of one resource in namespace and
// returns those still there.
func (d *contentDeleter) emptyResource(ctx context.Context, namespace string, t target) ([]metav1.PartialObjectMetadata, error) {
	deleted := false
	if t.deleteCollection {
		err := d.content.DeleteCollection(ctx, t.gvr, namespace)
		switch {
		case err == nil:
			deleted = true
		case apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err):
			// Fall back to deleting one by one.
		default:
			return nil, fmt.Errorf("delete collection of %s: %w", t.gvr.GroupResource(), err)
		}
	}
	items, err := d.content.List(ctx, t.gvr, namespace)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", t.gvr.GroupResource(), err)
	}
	if deleted {
		return items, nil
	}
	var errs []error
	for _, obj := range items {
		if obj.DeletionTimestamp != nil {
			continue
		}
		if err := d.content.Delete(ctx, t.gvr, namespace, obj.Name); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s %s: %w", t.gvr.GroupResource(), obj.Name, err))
		}
	}
	if len(errs) > 0 {
		return items, errors.Join(errs...)
	}
	// Deletes without a grace period are done: list what is really left.
	items, err = d.content.List(ctx, t.gvr, namespace)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("list %s: %w", t.gvr.GroupResource(), err)
	}
	return items, nil
}

// err is the error of a pass that could not see or delete everything.
func (r *result) err() error {
	errs := append([]error{r.discoveryErr}, r.gvParseErrs...)
	return errors.Join(append(errs, r.deleteErrs...)...)
}

// left reports whether objects are left.
func (r *result) left() bool { return len(r.remaining) > 0 }

// requeueAfter is when to look again: half the graceful deletion estimate
// plus a second, as Kubernetes does.
func (r *result) requeueAfter() time.Duration {
	secs := int64(r.estimate / time.Second)
	return time.Duration(secs/2+1) * time.Second
}

// The condition reasons and messages of Kubernetes' namespace controller.
var (
	conditionTypes = []corev1.NamespaceConditionType{
		corev1.NamespaceDeletionDiscoveryFailure,
		corev1.NamespaceDeletionGVParsingFailure,
		corev1.NamespaceDeletionContentFailure,
		corev1.NamespaceContentRemaining,
		corev1.NamespaceFinalizersRemaining,
	}
	okReason = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "ResourcesDiscovered",
		corev1.NamespaceDeletionGVParsingFailure: "ParsedGroupVersions",
		corev1.NamespaceDeletionContentFailure:   "ContentDeleted",
		corev1.NamespaceContentRemaining:         "ContentRemoved",
		corev1.NamespaceFinalizersRemaining:      "ContentRemoved",
	}
	okMessage = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "All content successfully deleted, may be waiting on finalization",
		corev1.NamespaceContentRemaining:         "All content successfully removed",
		corev1.NamespaceFinalizersRemaining:      "All content successfully removed",
	}
)

// conditions are the namespace conditions the pass reports: each type
// True with the cause, or False with the "all good" reason.
func (r *result) conditions(now time.Time) []corev1.NamespaceCondition {
	failing := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
	set := func(t corev1.NamespaceConditionType, reason, message string) {
		failing[t] = corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message}
	}
	if r.discoveryErr != nil {
		msg := r.discoveryErr.Error()
		var partial *discovery.GroupDiscoveryFailedError
		if errors.As(r.discoveryErr, &partial) {
			msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(partial.Groups), r.discoveryErr)
		}
		set(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", msg)
	}
	if len(r.gvParseErrs) > 0 {
		set(corev1.NamespaceDeletionGVParsingFailure, "GroupVersionParsingFailed", errors.Join(r.gvParseErrs...).Error())
	}
	if len(r.deleteErrs) > 0 {
		msgs := make([]string, 0, len(r.deleteErrs))
		for _, e := range r.deleteErrs {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		set(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", ")))
	}
	if len(r.remaining) > 0 {
		var parts []string
		for gvr, n := range r.remaining {
			parts = append(parts, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
		sort.Strings(parts)
		set(corev1.NamespaceContentRemaining, "SomeResourcesRemain", "Some resources are remaining: "+strings.Join(parts, ", "))
	}
	if len(r.finalizers) > 0 {
		var parts []string
		for _, f := range slices.Sorted(maps.Keys(r.finalizers)) {
			parts = append(parts, fmt.Sprintf("%s in %d resource instances", f, r.finalizers[f]))
		}
		sort.Strings(parts)
		set(corev1.NamespaceFinalizersRemaining, "SomeFinalizerRemain", "Some finalizers are remaining: "+strings.Join(parts, ", "))
	}
	out := make([]corev1.NamespaceCondition, 0, len(conditionTypes))
	for _, t := range conditionTypes {
		c, ok := failing[t]
		if !ok {
			c = corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: okReason[t], Message: okMessage[t]}
		}
		c.LastTransitionTime = metav1.NewTime(now)
		out = append(out, c)
	}
	return out
}

// setConditions merges conds into status, keeping the transition time of
// a condition whose status did not change; it reports a change.
func setConditions(status *corev1.NamespaceStatus, conds []corev1.NamespaceCondition) bool {
	changed := false
	for _, c := range conds {
		i := slices.IndexFunc(status.Conditions, func(o corev1.NamespaceCondition) bool { return o.Type == c.Type })
		if i < 0 {
			status.Conditions = append(status.Conditions, c)
			changed = true
			continue
		}
		old := &status.Conditions[i]
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		changed = true
	}
	return changed
}
