package printers

import (
	"time"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

func webhookConfigurationColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Webhooks", "integer", "The number of webhooks of the configuration."),
		ageColumn(),
	}
}

func printValidatingWebhookConfiguration(c *printContext, w *admissionregistrationv1.ValidatingWebhookConfiguration) (row, error) {
	return row{cells: []any{w.Name, int64(len(w.Webhooks)), c.age(w.CreationTimestamp)}}, nil
}

func printMutatingWebhookConfiguration(c *printContext, w *admissionregistrationv1.MutatingWebhookConfiguration) (row, error) {
	return row{cells: []any{w.Name, int64(len(w.Webhooks)), c.age(w.CreationTimestamp)}}, nil
}

// paramKind is the PARAMKIND cell: apiVersion/kind, or <unset>.
func paramKind(pk *admissionregistrationv1.ParamKind) string {
	if pk == nil {
		return "<unset>"
	}
	return pk.APIVersion + "/" + pk.Kind
}

// paramRef is the PARAMREF cell: namespace/name (*/name without a
// namespace), the selector, or <unset>.
func paramRef(pr *admissionregistrationv1.ParamRef) string {
	switch {
	case pr == nil:
		return "<unset>"
	case pr.Name != "" && pr.Namespace != "":
		return pr.Namespace + "/" + pr.Name
	case pr.Name != "":
		return "*/" + pr.Name
	case pr.Selector != nil:
		return metav1.FormatLabelSelector(pr.Selector)
	}
	return "<unset>"
}

func validatingAdmissionPolicyColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Validations", "integer", "The number of validations of the policy."),
		column("ParamKind", "string", "The kind of the policy's parameters."),
		ageColumn(),
	}
}

func printValidatingAdmissionPolicy(c *printContext, p *admissionregistrationv1.ValidatingAdmissionPolicy) (row, error) {
	return row{cells: []any{p.Name, int64(len(p.Spec.Validations)), paramKind(p.Spec.ParamKind), c.age(p.CreationTimestamp)}}, nil
}

func mutatingAdmissionPolicyColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Mutations", "integer", "The number of mutations of the policy."),
		column("ParamKind", "string", "The kind of the policy's parameters."),
		ageColumn(),
	}
}

func printMutatingAdmissionPolicy(c *printContext, p *admissionregistrationv1.MutatingAdmissionPolicy) (row, error) {
	return row{cells: []any{p.Name, int64(len(p.Spec.Mutations)), paramKind(p.Spec.ParamKind), c.age(p.CreationTimestamp)}}, nil
}

func policyBindingColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("PolicyName", "string", "The policy the binding applies."),
		column("ParamRef", "string", "The parameters of the binding."),
		ageColumn(),
	}
}

func printValidatingAdmissionPolicyBinding(c *printContext, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (row, error) {
	return row{cells: []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), c.age(b.CreationTimestamp)}}, nil
}

func printMutatingAdmissionPolicyBinding(c *printContext, b *admissionregistrationv1.MutatingAdmissionPolicyBinding) (row, error) {
	return row{cells: []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), c.age(b.CreationTimestamp)}}, nil
}

// admissionRegistrationPrinter is the Table convertor of an
// admissionregistration.k8s.io resource; nil for other resources.
func admissionRegistrationPrinter(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	kind := func(k string) schema.GroupVersionKind { return admissionregistrationv1.SchemeGroupVersion.WithKind(k) }
	switch gr {
	case admissionregistrationv1.Resource("validatingwebhookconfigurations"):
		return newPrinter(now, kind("ValidatingWebhookConfiguration"), webhookConfigurationColumns(), printValidatingWebhookConfiguration,
			func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
				return l.Items
			})
	case admissionregistrationv1.Resource("mutatingwebhookconfigurations"):
		return newPrinter(now, kind("MutatingWebhookConfiguration"), webhookConfigurationColumns(), printMutatingWebhookConfiguration,
			func(l *admissionregistrationv1.MutatingWebhookConfigurationList) []admissionregistrationv1.MutatingWebhookConfiguration {
				return l.Items
			})
	case admissionregistrationv1.Resource("validatingadmissionpolicies"):
		return newPrinter(now, kind("ValidatingAdmissionPolicy"), validatingAdmissionPolicyColumns(), printValidatingAdmissionPolicy,
			func(l *admissionregistrationv1.ValidatingAdmissionPolicyList) []admissionregistrationv1.ValidatingAdmissionPolicy {
				return l.Items
			})
	case admissionregistrationv1.Resource("validatingadmissionpolicybindings"):
		return newPrinter(now, kind("ValidatingAdmissionPolicyBinding"), policyBindingColumns(), printValidatingAdmissionPolicyBinding,
			func(l *admissionregistrationv1.ValidatingAdmissionPolicyBindingList) []admissionregistrationv1.ValidatingAdmissionPolicyBinding {
				return l.Items
			})
	case admissionregistrationv1.Resource("mutatingadmissionpolicies"):
		return newPrinter(now, kind("MutatingAdmissionPolicy"), mutatingAdmissionPolicyColumns(), printMutatingAdmissionPolicy,
			func(l *admissionregistrationv1.MutatingAdmissionPolicyList) []admissionregistrationv1.MutatingAdmissionPolicy {
				return l.Items
			})
	case admissionregistrationv1.Resource("mutatingadmissionpolicybindings"):
		return newPrinter(now, kind("MutatingAdmissionPolicyBinding"), policyBindingColumns(), printMutatingAdmissionPolicyBinding,
			func(l *admissionregistrationv1.MutatingAdmissionPolicyBindingList) []admissionregistrationv1.MutatingAdmissionPolicyBinding {
				return l.Items
			})
	}
	return nil
}
