package customresource

import (
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	registrystrategy "kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// scaleSpec is a version's scale subresource: where the replica counts
// and the selector live in its objects.
type scaleSpec struct {
	specReplicas   []string
	statusReplicas []string
	labelSelector  []string
}

// newScaleSpec parses the paths (".spec.replicas") of a scale subresource.
func newScaleSpec(s *apiextensionsv1.CustomResourceSubresourceScale) *scaleSpec {
	if s == nil {
		return nil
	}
	out := &scaleSpec{specReplicas: SplitPath(s.SpecReplicasPath), statusReplicas: SplitPath(s.StatusReplicasPath)}
	if s.LabelSelectorPath != nil {
		out.labelSelector = SplitPath(*s.LabelSelectorPath)
	}
	return out
}

// SplitPath splits a simple JSON path (".spec.replicas") into its fields.
func SplitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// validate checks the values at the scale paths: replica counts are
// integers from 0 to the int32 maximum, the selector a string.
func (s *scaleSpec) validate(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, path := range [][]string{s.specReplicas, s.statusReplicas} {
		v := unstructured.NestedField(obj, path...)
		if v == nil {
			continue
		}
		p := field.NewPath(path[0], path[1:]...)
		n, ok := unstructured.Int64(v)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p, v, "should be an integer"))
		case n < 0:
			errs = append(errs, field.Invalid(p, n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, field.Invalid(p, n, fmt.Sprintf("should be less than or equal to %d", math.MaxInt32)))
		}
	}
	if s.labelSelector != nil {
		if v := unstructured.NestedField(obj, s.labelSelector...); v != nil {
			if _, ok := v.(string); !ok {
				errs = append(errs, field.Invalid(field.NewPath(s.labelSelector[0], s.labelSelector[1:]...), v, "should be a string"))
			}
		}
	}
	return errs
}

// replicas reads the integer at path, 0 when absent.
func replicas(obj map[string]any, path []string) int32 {
	n, _ := unstructured.Int64(unstructured.NestedField(obj, path...))
	return int32(n)
}

var _ registrystrategy.ScaleMapper = (*scaleSpec)(nil)

// ScaleOf implements strategy.ScaleMapper: the replica counts and the
// selector at the version's paths.
func (s *scaleSpec) ScaleOf(obj runtime.Object) (autoscalingv1.ScaleSpec, autoscalingv1.ScaleStatus, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return autoscalingv1.ScaleSpec{}, autoscalingv1.ScaleStatus{}, fmt.Errorf("unexpected object of type %T", obj)
	}
	status := autoscalingv1.ScaleStatus{Replicas: replicas(u.Object, s.statusReplicas)}
	if s.labelSelector != nil {
		status.Selector = unstructured.NestedString(u.Object, s.labelSelector...)
	}
	return autoscalingv1.ScaleSpec{Replicas: replicas(u.Object, s.specReplicas)}, status, nil
}

// UpdateReplicas implements strategy.ScaleMapper: it writes the spec
// replicas path.
func (s *scaleSpec) UpdateReplicas(obj runtime.Object, n int32) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("unexpected object of type %T", obj)
	}
	unstructured.SetNestedField(u.Object, int64(n), s.specReplicas...)
	return nil
}

// ReplicasConfiguration implements strategy.ScaleMapper: an object that
// has n at the spec replicas path.
func (s *scaleSpec) ReplicasConfiguration(n int64) map[string]any {
	out := map[string]any{}
	unstructured.SetNestedField(out, n, s.specReplicas...)
	return out
}
