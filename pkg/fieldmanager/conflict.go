package fieldmanager

import (
	"fmt"
	"sort"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
)

// NewConflictError is the 409 Conflict Status of an apply whose fields
// other managers own, worded as Kubernetes words it:
//
//	Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas
//
// with one cause of type FieldManagerConflict per field.
func NewConflictError(conflicts merge.Conflicts) *apierrors.StatusError {
	causes := make([]metav1.StatusCause, 0, len(conflicts))
	for _, c := range conflicts {
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseTypeFieldManagerConflict,
			Message: "conflict with " + describeManager(c.Manager),
			Field:   c.Path.String(),
		})
	}
	return apierrors.NewApplyConflict(causes, conflictMessage(conflicts))
}

func conflictMessage(conflicts merge.Conflicts) string {
	if len(conflicts) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %v", describeManager(conflicts[0].Manager), conflicts[0].Path)
	}
	byManager := map[string][]fieldpath.Path{}
	var managers []string
	for _, c := range conflicts {
		if _, ok := byManager[c.Manager]; !ok {
			managers = append(managers, c.Manager)
		}
		byManager[c.Manager] = append(byManager[c.Manager], c.Path)
	}
	sort.Strings(managers)
	var lines []string
	for _, m := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %s:", describeManager(m)))
		for _, p := range byManager[m] {
			lines = append(lines, fmt.Sprintf("- %v", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n"))
}

// describeManager names a manager identity in a conflict: `"name"`, with
// its subresource, and the API version of an Update manager.
func describeManager(key string) string {
	id, err := parseKey(key)
	if err != nil {
		return fmt.Sprintf("%q", key)
	}
	s := fmt.Sprintf("%q", id.Manager)
	if id.Subresource != "" {
		s += fmt.Sprintf(" with subresource %q", id.Subresource)
	}
	if id.Operation == OperationUpdate {
		s += " using " + id.APIVersion
	}
	return s
}

// conflictsOutside are the conflicts whose field is not in allowed.
func conflictsOutside(conflicts merge.Conflicts, allowed *fieldpath.Set) merge.Conflicts {
	var out merge.Conflicts
	for _, c := range conflicts {
		if !allowed.Has(c.Path) {
			out = append(out, c)
		}
	}
	return out
}
