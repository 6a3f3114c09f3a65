package rollout

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
)

var controllerRevisionsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}

// revisioned is the side of rollout history and undo of a StatefulSet or
// a DaemonSet: its revisions are the ControllerRevisions its controller
// writes, each holding the strategic merge patch that puts its template
// back.
type revisioned struct {
	meta     metav1.ObjectMeta
	selector *metav1.LabelSelector
	template corev1.PodTemplateSpec
}

// revisionPatch is the data of a controller revision.
type revisionPatch struct {
	Spec struct {
		Template json.RawMessage `json:"template"`
	} `json:"spec"`
}

// revisions reads the controller revisions the workload controls, oldest
// first.
func (s *revisioned) revisions(ctx context.Context, dyn *dynamic.Client) ([]revision, error) {
	sel, err := metav1.LabelSelectorAsSelector(s.selector)
	if err != nil {
		return nil, err
	}
	l, err := dyn.Resource(controllerRevisionsGVR).Namespace(s.meta.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var list appsv1.ControllerRevisionList
	if err := fromUnstructured(l, &list); err != nil {
		return nil, err
	}
	var revs []revision
	for i := range list.Items {
		cr := &list.Items[i]
		if ref := metav1.GetControllerOf(cr); ref == nil || ref.UID != s.meta.UID {
			continue
		}
		t, err := revisionTemplate(cr.Data.Raw)
		if err != nil {
			return nil, fmt.Errorf("unable to parse history %s", cr.Name)
		}
		revs = append(revs, revision{number: cr.Revision, template: *t, described: t,
			changeCause: cr.Annotations[changeCauseAnnotation], annotations: cr.Annotations, patch: cr.Data.Raw})
	}
	slices.SortFunc(revs, func(a, b revision) int { return cmp.Compare(a.number, b.number) })
	return revs, nil
}

// revisionTemplate reads the template out of a revision's patch.
func revisionTemplate(data []byte) (*corev1.PodTemplateSpec, error) {
	var p revisionPatch
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if len(p.Spec.Template) == 0 {
		return nil, errors.New("no template")
	}
	var t corev1.PodTemplateSpec
	if err := json.Unmarshal(p.Spec.Template, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

func (s *revisioned) undoable() error { return nil }

func (s *revisioned) noPrevious() error { return errors.New("no last revision to roll back to") }

func (s *revisioned) matches(rev revision) bool {
	return reflect.DeepEqual(&rev.template, &s.template)
}

func (s *revisioned) dryRunPrefix() string { return "will roll back to " }

// rollbackPatch is the revision's own patch.
func (s *revisioned) rollbackPatch(rev revision) (types.PatchType, []byte, error) {
	return types.StrategicMergePatchType, rev.patch, nil
}
