package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"

	applypatch "kubecore.io/kubecore/pkg/kubectl/apply"
)

// lastAppliedManager owns the last-applied annotation once an object
// written by client-side apply is applied server-side, as the stock
// kubectl names it.
const lastAppliedManager = "kubectl-last-applied"

// The operations of managedFields entries.
const (
	operationApply  = "Apply"
	operationUpdate = "Update"
)

// clientSideManagers are the Update managers of client-side apply whose
// fields a server-side apply takes over.
var clientSideManagers = map[string]bool{clientSideManager: true, "before-first-apply": true}

// upgradeClientSideFields moves the fields client-side apply owns on live
// to manager's Apply entry (the annotation to lastAppliedManager's), as the
// stock kubectl does before its first server-side apply of such an object,
// so that the apply owns, and may remove, what client-side apply set. It
// writes the managedFields with a JSON patch guarded by live's
// resourceVersion; it does nothing when live has no such entry.
func upgradeClientSideFields(ctx context.Context, c *dynamic.ResourceClient, live *dynamic.Unstructured, manager string) error {
	meta, _ := live.Object["metadata"].(map[string]any)
	raw, _ := meta["managedFields"].([]any)
	if len(raw) == 0 {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	var entries []metav1.ManagedFieldsEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return fmt.Errorf("decode managedFields of %s: %w", live.GetName(), err)
	}
	annotation := fieldpath.MakePathOrDie("metadata", "annotations", applypatch.LastAppliedAnnotation)
	var (
		kept       []metav1.ManagedFieldsEntry
		taken      = map[string]*fieldpath.Set{} // by apiVersion
		versions   []string
		ownsAnnot  bool
		annotAPIVs string
	)
	for _, e := range entries {
		if !clientSideManagers[e.Manager] || e.Operation != operationUpdate || e.Subresource != "" {
			kept = append(kept, e)
			continue
		}
		set := &fieldpath.Set{}
		if e.FieldsV1 != nil {
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return fmt.Errorf("decode the fields of %s: %w", e.Manager, err)
			}
		}
		if set.Has(annotation) {
			ownsAnnot, annotAPIVs = true, e.APIVersion
			set = set.Difference(fieldpath.NewSet(annotation))
		}
		if prev, ok := taken[e.APIVersion]; ok {
			taken[e.APIVersion] = prev.Union(set)
		} else {
			taken[e.APIVersion] = set
			versions = append(versions, e.APIVersion)
		}
	}
	if len(taken) == 0 {
		return nil
	}
	for _, v := range versions {
		set := taken[v]
		merged := false
		for i := range kept {
			e := &kept[i]
			if e.Manager != manager || e.Operation != operationApply || e.APIVersion != v || e.Subresource != "" {
				continue
			}
			prev := &fieldpath.Set{}
			if e.FieldsV1 != nil {
				if err := prev.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
					return err
				}
			}
			if e.FieldsV1, err = fieldsV1(prev.Union(set)); err != nil {
				return err
			}
			merged = true
		}
		if !merged && !set.Empty() {
			fv, err := fieldsV1(set)
			if err != nil {
				return err
			}
			kept = append(kept, metav1.ManagedFieldsEntry{Manager: manager, Operation: operationApply, APIVersion: v, FieldsType: "FieldsV1", FieldsV1: fv})
		}
	}
	if ownsAnnot {
		fv, err := fieldsV1(fieldpath.NewSet(annotation))
		if err != nil {
			return err
		}
		kept = append(kept, metav1.ManagedFieldsEntry{Manager: lastAppliedManager, Operation: operationApply, APIVersion: annotAPIVs, FieldsType: "FieldsV1", FieldsV1: fv})
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
		{"op": "replace", "path": "/metadata/managedFields", "value": kept},
	})
	if err != nil {
		return err
	}
	if _, err := c.Patch(ctx, live.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("upgrade the managed fields of %s from client-side apply: %w", live.GetName(), err)
	}
	return nil
}

func fieldsV1(set *fieldpath.Set) (*metav1.FieldsV1, error) {
	data, err := set.ToJSON()
	if err != nil {
		return nil, err
	}
	return &metav1.FieldsV1{Raw: data}, nil
}
