package fieldmanager

import (
	"encoding/json"
	"fmt"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// LastAppliedAnnotation is where client-side `kubectl apply` keeps the
// configuration it last applied.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// kubectlManager is the field manager of `kubectl apply --server-side`;
// only it takes over from, and keeps in step with, client-side apply
// (another manager name opts out, as in Kubernetes).
const kubectlManager = "kubectl"

// totalAnnotationSizeLimit is the most bytes an object's annotations (keys
// and values) may hold.
const totalAnnotationSizeLimit = 256 * 1024

// lastAppliedFields are the fields of live's last-applied annotation whose
// values live still has: client-side apply set them, so kubectl applying
// server-side may take them over without a conflict. Nil when there is no
// usable annotation.
func (f *FieldManager) lastAppliedFields(live runtime.Object, liveTyped *typed.TypedValue) *fieldpath.Set {
	meta, err := accessor(live)
	if err != nil {
		return nil
	}
	text := meta.GetAnnotations()[LastAppliedAnnotation]
	if text == "" {
		return nil
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(text), &last); err != nil {
		return nil
	}
	if v, _ := last["apiVersion"].(string); v != string(f.apiVersion) {
		return nil
	}
	lastTyped, err := f.typ.FromUnstructured(last)
	if err != nil {
		return nil
	}
	set, err := lastTyped.ToFieldSet()
	if err != nil {
		return nil
	}
	cmp, err := lastTyped.Compare(liveTyped)
	if err != nil {
		return nil
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed)
}

// syncLastApplied keeps an object's last-applied annotation, when it has
// one, equal to what kubectl applied server-side (without the annotation
// itself), so that a later client-side `kubectl apply` computes its patch
// from it. An annotation that would overflow the annotations' size limit
// is dropped.
func syncLastApplied(meta metav1.Object, applied map[string]any) error {
	annotations := meta.GetAnnotations()
	if annotations[LastAppliedAnnotation] == "" {
		return nil
	}
	cfg := applied
	if m, ok := applied["metadata"].(map[string]any); ok {
		if a, ok := m["annotations"].(map[string]any); ok {
			if _, has := a[LastAppliedAnnotation]; has {
				a2 := make(map[string]any, len(a))
				for k, v := range a {
					if k != LastAppliedAnnotation {
						a2[k] = v
					}
				}
				m2 := make(map[string]any, len(m))
				for k, v := range m {
					m2[k] = v
				}
				m2["annotations"] = a2
				cfg = make(map[string]any, len(applied))
				for k, v := range applied {
					cfg[k] = v
				}
				cfg["metadata"] = m2
			}
		}
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("failed to build last-applied annotation: %w", err)
	}
	out := make(map[string]string, len(annotations))
	total := 0
	for k, v := range annotations {
		out[k] = v
		if k != LastAppliedAnnotation {
			total += len(k) + len(v)
		}
	}
	out[LastAppliedAnnotation] = string(data)
	if total+len(LastAppliedAnnotation)+len(data) > totalAnnotationSizeLimit {
		delete(out, LastAppliedAnnotation)
	}
	meta.SetAnnotations(out)
	return nil
}
