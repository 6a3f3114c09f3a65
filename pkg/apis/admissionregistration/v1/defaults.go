// Package v1 registers the admissionregistration.k8s.io/v1 kinds with a
// server's scheme together with their defaults.
package v1

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the admissionregistration.k8s.io/v1 kinds and
// their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := admissionregistrationv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsValidatingWebhookConfiguration)
	runtime.AddDefaultingFunc(s, SetDefaultsMutatingWebhookConfiguration)
	runtime.AddDefaultingFunc(s, SetDefaultsValidatingAdmissionPolicy)
	runtime.AddDefaultingFunc(s, SetDefaultsValidatingAdmissionPolicyBinding)
	runtime.AddDefaultingFunc(s, SetDefaultsMutatingAdmissionPolicy)
	runtime.AddDefaultingFunc(s, SetDefaultsMutatingAdmissionPolicyBinding)
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// defaultCommon fills what both kinds of webhook share: Fail, Equivalent,
// selectors matching everything, 10 seconds, every scope, port 443.
func defaultCommon(fp **admissionregistrationv1.FailurePolicyType, mp **admissionregistrationv1.MatchPolicyType,
	ns, obj **metav1.LabelSelector, timeout **int32, rules []admissionregistrationv1.RuleWithOperations, cc *admissionregistrationv1.WebhookClientConfig) {
	if *fp == nil {
		*fp = ptrTo(admissionregistrationv1.Fail)
	}
	if *mp == nil {
		*mp = ptrTo(admissionregistrationv1.Equivalent)
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *obj == nil {
		*obj = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptrTo(int32(10))
	}
	defaultRules(rules)
	if s := cc.Service; s != nil && s.Port == nil {
		s.Port = ptrTo(int32(443))
	}
}

// defaultRules makes every rule's scope "*" when not set.
func defaultRules(rules []admissionregistrationv1.RuleWithOperations) {
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
		}
	}
}

// SetDefaultsValidatingWebhookConfiguration fills each webhook's defaults.
func SetDefaultsValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		defaultCommon(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
	}
}

// SetDefaultsMutatingWebhookConfiguration fills each webhook's defaults,
// and Never reinvoked.
func SetDefaultsMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		defaultCommon(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptrTo(admissionregistrationv1.NeverReinvocationPolicy)
		}
	}
}

// defaultMatchResources: Equivalent, selectors matching everything, every
// scope.
func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptrTo(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range m.ResourceRules {
		if m.ResourceRules[i].Scope == nil {
			m.ResourceRules[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
		}
	}
	for i := range m.ExcludeResourceRules {
		if m.ExcludeResourceRules[i].Scope == nil {
			m.ExcludeResourceRules[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
		}
	}
}

// SetDefaultsValidatingAdmissionPolicy: Fail, and the match defaults.
func SetDefaultsValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptrTo(admissionregistrationv1.Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsValidatingAdmissionPolicyBinding: the match defaults.
func SetDefaultsValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

// SetDefaultsMutatingAdmissionPolicy: Fail, and the match defaults.
func SetDefaultsMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptrTo(admissionregistrationv1.Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsMutatingAdmissionPolicyBinding: the match defaults.
func SetDefaultsMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}
