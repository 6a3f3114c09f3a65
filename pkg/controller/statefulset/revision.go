package statefulset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// revisionData is what a ControllerRevision of a StatefulSet holds: the
// patch that puts its pod template back (kubectl rollout undo applies it).
func revisionData(set *appsv1.StatefulSet) ([]byte, error) {
	raw, err := json.Marshal(set.Spec.Template)
	if err != nil {
		return nil, fmt.Errorf("encode the template of %s/%s: %w", set.Namespace, set.Name, err)
	}
	var tmpl map[string]any
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, fmt.Errorf("encode the template of %s/%s: %w", set.Namespace, set.Name, err)
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// templateOf reads the pod template back from a revision's data.
func templateOf(rev *appsv1.ControllerRevision) (corev1.PodTemplateSpec, error) {
	var data struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &data); err != nil {
		return corev1.PodTemplateSpec{}, fmt.Errorf("decode revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return data.Spec.Template, nil
}

// safeAlphabet spells hashes without vowels (no words) and without
// characters easily confused (0, 1, 3).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// revisionHash hashes revision data and the collision count into a short
// label-safe string.
func revisionHash(data []byte, collisionCount *int32) string {
	h := fnv.New32a()
	_, _ = h.Write(data)
	if collisionCount != nil {
		_, _ = h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	digits := strconv.FormatUint(uint64(h.Sum32()), 10)
	out := make([]byte, len(digits))
	for i := range digits {
		out[i] = safeAlphabet[int(digits[i])%len(safeAlphabet)]
	}
	return string(out)
}

// newRevision returns the ControllerRevision of set's current template.
func newRevision(set *appsv1.StatefulSet, revision int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	data, err := revisionData(set)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for k, v := range set.Spec.Template.Labels {
		labels[k] = v
	}
	hash := revisionHash(data, collisionCount)
	labels[appsv1.ControllerRevisionHashLabelKey] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            set.Name + "-" + hash,
			Namespace:       set.Namespace,
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, controllerKind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}, nil
}

// equalRevisions reports whether two revisions hold the same template.
func equalRevisions(a, b *appsv1.ControllerRevision) bool {
	return bytes.Equal(compactJSON(a.Data.Raw), compactJSON(b.Data.Raw))
}

func compactJSON(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// sortRevisions orders revisions by revision number, then name.
func sortRevisions(revs []*appsv1.ControllerRevision) {
	slices.SortFunc(revs, func(a, b *appsv1.ControllerRevision) int {
		if a.Revision != b.Revision {
			if a.Revision < b.Revision {
				return -1
			}
			return 1
		}
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
}

// nextRevision is the revision number after the newest of revs.
func nextRevision(revs []*appsv1.ControllerRevision) int64 {
	if len(revs) == 0 {
		return 1
	}
	return revs[len(revs)-1].Revision + 1
}
