// Package helper holds the scheduling rules of core/v1 objects that the
// scheduler and controllers share: node selector and required node affinity
// matching, and taint toleration lookups.
package helper

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// NodeSelectorTerm is a parsed node selector term: every requirement must
// hold. A term with no requirements matches no node.
type NodeSelectorTerm struct {
	exprs  []corev1.NodeSelectorRequirement
	fields []corev1.NodeSelectorRequirement
}

// ParseNodeSelectorTerms checks terms and returns them parsed; path names
// the field for errors.
func ParseNodeSelectorTerms(terms []corev1.NodeSelectorTerm, path *field.Path) ([]NodeSelectorTerm, error) {
	out := make([]NodeSelectorTerm, 0, len(terms))
	for i, t := range terms {
		p := path.Index(i)
		for j, r := range t.MatchExpressions {
			if err := checkRequirement(r, p.Child("matchExpressions").Index(j)); err != nil {
				return nil, err
			}
		}
		for j, r := range t.MatchFields {
			fp := p.Child("matchFields").Index(j)
			if r.Key != "metadata.name" {
				return nil, field.Invalid(fp.Child("key"), r.Key, "not a supported field selector key")
			}
			if r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn {
				return nil, field.NotSupported(fp.Child("operator"), r.Operator, []string{string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn)})
			}
			if len(r.Values) != 1 {
				return nil, field.Invalid(fp.Child("values"), r.Values, "must have one element")
			}
		}
		out = append(out, NodeSelectorTerm{exprs: t.MatchExpressions, fields: t.MatchFields})
	}
	return out, nil
}

func checkRequirement(r corev1.NodeSelectorRequirement, p *field.Path) error {
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'")
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return field.Invalid(p.Child("values").Index(0), r.Values[0], "must be an integer")
		}
	default:
		return field.NotSupported(p.Child("operator"), r.Operator, []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
	}
	return nil
}

// Match reports whether node satisfies every requirement of the term.
func (t NodeSelectorTerm) Match(node *corev1.Node) bool {
	if len(t.exprs) == 0 && len(t.fields) == 0 {
		return false
	}
	for _, r := range t.exprs {
		v, has := node.Labels[r.Key]
		if !requirementMatches(r, v, has) {
			return false
		}
	}
	for _, r := range t.fields {
		if !requirementMatches(r, node.Name, true) {
			return false
		}
	}
	return true
}

func requirementMatches(r corev1.NodeSelectorRequirement, v string, has bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return has && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !has || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(r.Values) != 1 {
			return false
		}
		nv, err1 := strconv.ParseInt(v, 10, 64)
		rv, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return nv > rv
		}
		return nv < rv
	}
	return false
}

// MatchAnyTerm reports whether node satisfies one of terms (they are ORed).
func MatchAnyTerm(terms []NodeSelectorTerm, node *corev1.Node) bool {
	for _, t := range terms {
		if t.Match(node) {
			return true
		}
	}
	return false
}

// RequiredNodeAffinity is a pod's nodeSelector and required node affinity.
type RequiredNodeAffinity struct {
	selector labels.Selector
	terms    []NodeSelectorTerm
	hasTerms bool
}

// NewRequiredNodeAffinity parses the pod's node constraints.
func NewRequiredNodeAffinity(pod *corev1.Pod) (*RequiredNodeAffinity, error) {
	r := &RequiredNodeAffinity{}
	if len(pod.Spec.NodeSelector) > 0 {
		r.selector = labels.Set(pod.Spec.NodeSelector).AsSelectorPreValidated()
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms, err := ParseNodeSelectorTerms(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
			field.NewPath("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		r.terms, r.hasTerms = terms, true
	}
	return r, nil
}

// Match reports whether node satisfies the pod's nodeSelector and required
// node affinity.
func (r *RequiredNodeAffinity) Match(node *corev1.Node) bool {
	if r.selector != nil && !r.selector.Matches(labels.Set(node.Labels)) {
		return false
	}
	return !r.hasTerms || MatchAnyTerm(r.terms, node)
}

// FindUntoleratedTaint returns the first taint accepted by filter that no
// toleration tolerates.
func FindUntoleratedTaint(taints []corev1.Taint, tolerations []corev1.Toleration, filter func(*corev1.Taint) bool) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if filter != nil && !filter(t) {
			continue
		}
		if !TolerationsTolerateTaint(tolerations, t) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}

// TolerationsTolerateTaint reports whether one of tolerations tolerates t.
func TolerationsTolerateTaint(tolerations []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(t) {
			return true
		}
	}
	return false
}

// DoNotScheduleTaints accepts the taints that keep pods off a node.
func DoNotScheduleTaints(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// NamespaceTerminating reports whether ns is being deleted: nothing new may
// be created in it, and controllers stop filling it.
func NamespaceTerminating(ns *corev1.Namespace) bool {
	return ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating
}
