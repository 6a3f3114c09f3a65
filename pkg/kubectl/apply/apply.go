// Package apply computes what client-side `kubectl apply` sends: the
// manifest recorded in the last-applied-configuration annotation, and the
// three-way patch from the last applied, the new and the live object — a
// strategic merge patch for the built-in kinds, a JSON merge patch for the
// others.
package apply

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
)

// LastAppliedAnnotation holds the manifest last applied, as JSON.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// NewScheme returns the built-in kinds, whose Go types carry the
// patchStrategy and patchMergeKey tags strategic merge needs.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv1.AddToScheme,
		coordinationv1.AddToScheme, policyv1.AddToScheme, schedulingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("build the scheme of built-in kinds: %w", err)
		}
	}
	return s, nil
}

// ModifiedConfiguration returns obj as it will be stored by apply: with
// the annotation holding obj itself (without that annotation) as JSON. It
// returns the annotated object and its JSON.
func ModifiedConfiguration(obj *dynamic.Unstructured) (*dynamic.Unstructured, []byte, error) {
	bare := obj.DeepCopy()
	// Like kubectl, record the annotations as they are without ours, an
	// empty map included.
	raw, _ := dynamic.NestedField(bare.Object, "metadata", "annotations").(map[string]any)
	if raw == nil {
		raw = map[string]any{}
	}
	delete(raw, LastAppliedAnnotation)
	dynamic.SetNestedField(bare.Object, raw, "metadata", "annotations")
	applied, err := json.Marshal(bare.Object)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the applied configuration: %w", err)
	}
	annotated := bare.DeepCopy()
	ann := annotated.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[LastAppliedAnnotation] = string(applied) + "\n"
	annotated.SetAnnotations(ann)
	modified, err := json.Marshal(annotated.Object)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the applied object: %w", err)
	}
	return annotated, modified, nil
}

// Patcher computes apply patches.
type Patcher struct {
	scheme *runtime.Scheme
}

// NewPatcher returns a Patcher knowing the built-in kinds of scheme.
func NewPatcher(scheme *runtime.Scheme) *Patcher { return &Patcher{scheme: scheme} }

// Patch returns the three-way patch taking current to modified, deleting
// what original set and modified no longer does, and its type. An empty
// patch ("{}") means nothing changes.
func (p *Patcher) Patch(gvk schema.GroupVersionKind, original, modified, current []byte) ([]byte, types.PatchType, error) {
	if p.scheme != nil && p.scheme.Recognizes(gvk) {
		obj, err := p.scheme.New(gvk)
		if err != nil {
			return nil, "", err
		}
		meta, err := strategicpatch.NewPatchMetaFromStruct(obj)
		if err != nil {
			return nil, "", fmt.Errorf("patch metadata of %s: %w", gvk.Kind, err)
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		if err != nil {
			return nil, "", fmt.Errorf("create the strategic merge patch of %s: %w", gvk.Kind, err)
		}
		return patch, types.StrategicMergePatchType, nil
	}
	patch, err := ThreeWayMergePatch(original, modified, current)
	if err != nil {
		return nil, "", err
	}
	return patch, types.MergePatchType, nil
}

// ThreeWayMergePatch returns the JSON merge patch (RFC 7386) that makes
// current hold what modified sets, and removes the fields original set
// that modified dropped. Fields neither sets are left alone.
func ThreeWayMergePatch(original, modified, current []byte) ([]byte, error) {
	var o, m, c map[string]any
	for _, d := range []struct {
		data []byte
		into *map[string]any
		what string
	}{{original, &o, "original"}, {modified, &m, "modified"}, {current, &c, "current"}} {
		if len(d.data) == 0 {
			continue
		}
		if err := json.Unmarshal(d.data, d.into); err != nil {
			return nil, fmt.Errorf("decode the %s object: %w", d.what, err)
		}
	}
	patch := mergeDiff(o, m, c)
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encode merge patch: %w", err)
	}
	return b, nil
}

func mergeDiff(original, modified, current map[string]any) map[string]any {
	patch := map[string]any{}
	for k, mv := range modified {
		cv, inCurrent := current[k]
		mm, mIsMap := mv.(map[string]any)
		cm, cIsMap := cv.(map[string]any)
		if mIsMap && cIsMap {
			om, _ := original[k].(map[string]any)
			if sub := mergeDiff(om, mm, cm); len(sub) > 0 {
				patch[k] = sub
			}
			continue
		}
		if !inCurrent || !reflect.DeepEqual(mv, cv) {
			patch[k] = mv
		}
	}
	for k := range original {
		if _, kept := modified[k]; kept {
			continue
		}
		if _, live := current[k]; live {
			patch[k] = nil
		}
	}
	return patch
}
