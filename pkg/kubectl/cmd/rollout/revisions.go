package rollout

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// workload is a kind whose rollouts have a history: a Deployment (its
// replica sets), a StatefulSet or a DaemonSet (their controller
// revisions).
type workload interface {
	// revisions reads the history, oldest first.
	revisions(ctx context.Context, dyn *dynamic.Client) ([]revision, error)
	// undoable says why the workload cannot be rolled back now, if so.
	undoable() error
	// noPrevious is undo's error when there is no revision to go back to.
	noPrevious() error
	// matches reports whether the workload's template is rev's already.
	matches(rev revision) bool
	// rollbackPatch is the patch that restores rev.
	rollbackPatch(rev revision) (types.PatchType, []byte, error)
	// dryRunPrefix opens what undo --dry-run=client prints before the
	// template.
	dryRunPrefix() string
}

// workloadVisit is what visitWorkloads hands each workload to.
type workloadVisit struct {
	result   *resource.Result
	info     *resource.Info
	workload workload
	dyn      *dynamic.Client
}

// visitWorkloads fetches the objects that args, files and selector name
// and calls fn with each Deployment, StatefulSet and DaemonSet; any other kind gets
// the stock kubectl's "no visitor method" error for visitor. The errors
// of every object are returned together.
func visitWorkloads(ctx context.Context, f *cmdutil.Factory, streams cmdutil.IOStreams, files resource.FilenameOptions, selector string, args []string,
	visitor string, fn func(v workloadVisit) error) error {
	b, err := f.NewBuilder(streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(files).Args(args...).LabelSelector(selector).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	// What was found is worked on; what was not is reported first.
	infos, fetchErr := r.Fetch(ctx)
	dyn, err := f.Dynamic()
	if err != nil {
		return err
	}
	errs := []error{fetchErr}
	for _, info := range infos {
		var w workload
		switch gk := info.Mapping.Kind.GroupKind(); gk {
		case deploymentKind:
			var dep appsv1.Deployment
			if err := fromUnstructured(info.Object, &dep); err != nil {
				return err
			}
			w = &deployment{&dep}
		case statefulSetKind:
			var sts appsv1.StatefulSet
			if err := fromUnstructured(info.Object, &sts); err != nil {
				return err
			}
			w = &revisioned{meta: sts.ObjectMeta, selector: sts.Spec.Selector, template: sts.Spec.Template}
		case daemonSetKind:
			var ds appsv1.DaemonSet
			if err := fromUnstructured(info.Object, &ds); err != nil {
				return err
			}
			w = &revisioned{meta: ds.ObjectMeta, selector: ds.Spec.Selector, template: ds.Spec.Template}
		default:
			errs = append(errs, noVisitorError(visitor, gk))
			continue
		}
		if err := fn(workloadVisit{result: r, info: info, workload: w, dyn: dyn}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Annotations a deployment's revisions are kept under.
const (
	revisionAnnotation    = "deployment.kubernetes.io/revision"
	changeCauseAnnotation = "kubernetes.io/change-cause"
)

var (
	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	daemonSetKind   = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	replicaSetsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// revision is one entry of a workload's rollout history.
type revision struct {
	number int64
	// template is the pod template of the revision.
	template    corev1.PodTemplateSpec
	changeCause string
	// annotations are those of the object holding the revision.
	annotations map[string]string
	// described is the template rollout history --revision prints.
	described *corev1.PodTemplateSpec
	// patch, for a controller revision, is the patch it holds.
	patch []byte
}

// fromUnstructured decodes obj into a typed API struct.
func fromUnstructured(obj *dynamic.Unstructured, into any) error {
	b, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("decode %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// deployment is a Deployment's side of rollout history and undo; its
// revisions are its replica sets.
type deployment struct{ dep *appsv1.Deployment }

// revisions reads the revisions of the deployment from the replica sets it
// controls, oldest first.
func (d *deployment) revisions(ctx context.Context, dyn *dynamic.Client) ([]revision, error) {
	dep := d.dep
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		return nil, err
	}
	l, err := dyn.Resource(replicaSetsGVR).Namespace(dep.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var list appsv1.ReplicaSetList
	if err := fromUnstructured(l, &list); err != nil {
		return nil, err
	}
	return replicaSetRevisions(dep, list.Items), nil
}

// replicaSetRevisions returns the revisions of the replica sets dep
// controls, oldest first; replica sets without a revision are left out.
func replicaSetRevisions(dep *appsv1.Deployment, rss []appsv1.ReplicaSet) []revision {
	var revs []revision
	for i := range rss {
		rs := &rss[i]
		ref := metav1.GetControllerOf(rs)
		if ref == nil || ref.UID != dep.UID {
			continue
		}
		n, err := strconv.ParseInt(rs.Annotations[revisionAnnotation], 10, 64)
		if err != nil {
			continue
		}
		rev := revision{number: n, template: rs.Spec.Template, changeCause: rs.Annotations[changeCauseAnnotation], annotations: rs.Annotations}
		rev.described = rev.describedTemplate()
		revs = append(revs, rev)
	}
	slices.SortFunc(revs, func(a, b revision) int { return cmp.Compare(a.number, b.number) })
	return revs
}

// find returns the revision numbered n, or with n 0 the one before the
// latest.
func find(revs []revision, n int64) (revision, bool) {
	if n == 0 {
		if len(revs) < 2 {
			return revision{}, false
		}
		return revs[len(revs)-2], true
	}
	for _, r := range revs {
		if r.number == n {
			return r, true
		}
	}
	return revision{}, false
}

// describedTemplate is the template rollout history --revision prints: the
// revision's, with its change cause among the annotations.
func (r revision) describedTemplate() *corev1.PodTemplateSpec {
	t := r.template.DeepCopy()
	if r.changeCause != "" {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[changeCauseAnnotation] = r.changeCause
	}
	return t
}

// withoutHash returns t without the pod-template-hash label the deployment
// controller adds to its replica sets.
func withoutHash(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	c := t.DeepCopy()
	delete(c.Labels, "pod-template-hash")
	if len(c.Labels) == 0 {
		c.Labels = nil
	}
	return c
}

// noVisitorError is what kubectl says of a kind a rollout subcommand does
// not handle; what is "history" or "rollbacker".
func noVisitorError(what string, gk schema.GroupKind) error {
	return fmt.Errorf("error retrieving %s for %q, no visitor method exists for {%s %s}", what, gk.String(), gk.Group, gk.Kind)
}
