// Package matching is what admission webhooks and admission policies share
// to decide whether a write concerns them: resource rules with their
// scope, matchPolicy, namespace and object selectors, excluded rules, CEL
// matchConditions, and the admission.k8s.io/v1 AdmissionRequest a write's
// rest.Attributes make.
package matching

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// namespaces is the resource whose objects are matched by their own labels
// and count as cluster-scoped.
var namespaces = corev1.Resource("namespaces")

// RuleMatches reports whether r covers the write a describes as the
// resource gvr: operation, group, version, resource with subresource
// ("*", "*/*", "pods/*", "*/status", "pods/status"), scope, and, for a
// named rule, the object's name.
func RuleMatches(r admissionregistrationv1.RuleWithOperations, a *rest.Attributes, gvr schema.GroupVersionResource) bool {
	return operationMatches(r.Operations, a.Operation) &&
		listMatches(r.APIGroups, gvr.Group) &&
		listMatches(r.APIVersions, gvr.Version) &&
		resourceMatches(r.Resources, gvr.Resource, a.Subresource) &&
		scopeMatches(r.Scope, a)
}

// NamedRuleMatches is RuleMatches with the rule's resourceNames: an empty
// list names every object.
func NamedRuleMatches(r admissionregistrationv1.NamedRuleWithOperations, a *rest.Attributes, gvr schema.GroupVersionResource) bool {
	if len(r.ResourceNames) > 0 && !slices.Contains(r.ResourceNames, a.Name) {
		return false
	}
	return RuleMatches(r.RuleWithOperations, a, gvr)
}

func operationMatches(ops []admissionregistrationv1.OperationType, op rest.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func listMatches(list []string, v string) bool {
	for _, s := range list {
		if s == "*" || s == v {
			return true
		}
	}
	return false
}

// resourceMatches: "*" is every resource but no subresource, "*/*" every
// resource and subresource, "r/*" every subresource of r, "*/s" the
// subresource s of every resource.
func resourceMatches(rules []string, resource, subresource string) bool {
	for _, r := range rules {
		if r == "*/*" {
			return true
		}
		res, sub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// scopeMatches: a Namespace is cluster-scoped, and so is every write
// without a namespace.
func scopeMatches(scope *admissionregistrationv1.ScopeType, a *rest.Attributes) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	clusterScoped := a.Namespace == "" || isNamespace(a)
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !clusterScoped
	case admissionregistrationv1.ClusterScope:
		return clusterScoped
	}
	return false
}

func isNamespace(a *rest.Attributes) bool {
	return a.Resource.GroupResource() == namespaces
}

// Equivalents lists the group/version/resources that serve the same
// objects as gvr (for gvr without a version, an in-process write, the
// versions served): what matchPolicy Equivalent also matches. A nil
// Equivalents knows only gvr itself.
type Equivalents func(gvr schema.GroupVersionResource) []schema.GroupVersionResource

// NamespaceGetter reads a Namespace, nil when there is none.
type NamespaceGetter interface {
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
}

// Matcher is the compiled match criteria of one webhook or policy
// binding.
type Matcher struct {
	Rules        []admissionregistrationv1.NamedRuleWithOperations
	ExcludeRules []admissionregistrationv1.NamedRuleWithOperations
	// Equivalent is matchPolicy Equivalent (the default).
	Equivalent        bool
	NamespaceSelector labels.Selector
	ObjectSelector    labels.Selector
}

// Criteria are the fields a Matcher is compiled from.
type Criteria struct {
	Rules             []admissionregistrationv1.NamedRuleWithOperations
	ExcludeRules      []admissionregistrationv1.NamedRuleWithOperations
	MatchPolicy       *admissionregistrationv1.MatchPolicyType
	NamespaceSelector *metav1.LabelSelector
	ObjectSelector    *metav1.LabelSelector
}

// WebhookRules makes named rules of a webhook's rules.
func WebhookRules(rules []admissionregistrationv1.RuleWithOperations) []admissionregistrationv1.NamedRuleWithOperations {
	out := make([]admissionregistrationv1.NamedRuleWithOperations, len(rules))
	for i, r := range rules {
		out[i] = admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: r}
	}
	return out
}

// NewMatcher compiles c. A nil selector selects everything.
func NewMatcher(c Criteria) (*Matcher, error) {
	m := &Matcher{
		Rules: c.Rules, ExcludeRules: c.ExcludeRules,
		Equivalent: c.MatchPolicy == nil || *c.MatchPolicy != admissionregistrationv1.Exact,
	}
	var err error
	if m.NamespaceSelector, err = selector(c.NamespaceSelector); err != nil {
		return nil, fmt.Errorf("namespaceSelector: %w", err)
	}
	if m.ObjectSelector, err = selector(c.ObjectSelector); err != nil {
		return nil, fmt.Errorf("objectSelector: %w", err)
	}
	return m, nil
}

func selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

// Match says how a write matched: the resource and kind the webhook or
// policy sees it as (an equivalent one under matchPolicy Equivalent).
type Match struct {
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// MatchesResource reports whether a matches the rules and not the excluded
// rules, and as which resource. eq may be nil.
func (m *Matcher) MatchesResource(a *rest.Attributes, eq Equivalents) (Match, bool) {
	candidates := []schema.GroupVersionResource{a.Resource}
	if eq != nil {
		for _, e := range eq(a.Resource) {
			if !slices.Contains(candidates, e) {
				candidates = append(candidates, e)
			}
		}
	}
	if !m.Equivalent {
		candidates = candidates[:1]
	}
	for _, gvr := range candidates {
		if m.excluded(a, gvr) {
			return Match{}, false
		}
	}
	for _, gvr := range candidates {
		for _, r := range m.Rules {
			if NamedRuleMatches(r, a, gvr) {
				kind := a.Kind
				if gvr.Version != "" && (kind.Group == gvr.Group || kind.Version == "") {
					kind.Version = gvr.Version
				}
				return Match{Resource: gvr, Kind: kind}, true
			}
		}
	}
	return Match{}, false
}

func (m *Matcher) excluded(a *rest.Attributes, gvr schema.GroupVersionResource) bool {
	for _, r := range m.ExcludeRules {
		if NamedRuleMatches(r, a, gvr) {
			return true
		}
	}
	return false
}

// MatchesNamespace reports whether the namespaceSelector selects a's
// namespace: a Namespace is selected by its own labels (its old labels on
// DELETE), any other cluster-scoped object always.
func (m *Matcher) MatchesNamespace(ctx context.Context, a *rest.Attributes, ns NamespaceGetter) (bool, error) {
	if m.NamespaceSelector.Empty() {
		return true, nil
	}
	if isNamespace(a) && a.Subresource == "" {
		obj := a.Object
		if obj == nil {
			obj = a.OldObject
		}
		return m.NamespaceSelector.Matches(labels.Set(Labels(obj))), nil
	}
	if a.Namespace == "" {
		return true, nil
	}
	name := a.Namespace
	if isNamespace(a) {
		name = a.Name
	}
	n, err := ns.Namespace(ctx, name)
	if err != nil {
		return false, fmt.Errorf("read namespace %s for the namespaceSelector: %w", name, err)
	}
	if n == nil {
		return false, fmt.Errorf("namespace %q not found", name)
	}
	return m.NamespaceSelector.Matches(labels.Set(n.Labels)), nil
}

// MatchesObject reports whether the objectSelector selects the object or
// the old object.
func (m *Matcher) MatchesObject(a *rest.Attributes) bool {
	if m.ObjectSelector.Empty() {
		return true
	}
	for _, o := range []runtime.Object{a.Object, a.OldObject} {
		if o != nil && m.ObjectSelector.Matches(labels.Set(Labels(o))) {
			return true
		}
	}
	return false
}

// Matches runs MatchesResource, MatchesObject then MatchesNamespace.
func (m *Matcher) Matches(ctx context.Context, a *rest.Attributes, eq Equivalents, ns NamespaceGetter) (Match, bool, error) {
	match, ok := m.MatchesResource(a, eq)
	if !ok || !m.MatchesObject(a) {
		return Match{}, false, nil
	}
	ok, err := m.MatchesNamespace(ctx, a, ns)
	if err != nil || !ok {
		return Match{}, false, err
	}
	return match, true, nil
}

// Labels returns an object's labels, nil for an object without metadata.
func Labels(obj runtime.Object) map[string]string {
	if o, ok := obj.(interface{ GetLabels() map[string]string }); ok {
		return o.GetLabels()
	}
	if o, ok := obj.(metav1.ObjectMetaAccessor); ok {
		return o.GetObjectMeta().GetLabels()
	}
	return nil
}
