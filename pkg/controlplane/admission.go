package controlplane

import (
	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/plugin/defaultstorageclass"
	"kubecore.io/kubecore/pkg/admission/plugin/limitranger"
	"kubecore.io/kubecore/pkg/admission/plugin/noderestriction"
	"kubecore.io/kubecore/pkg/admission/plugin/persistentvolumeclaimresize"
	"kubecore.io/kubecore/pkg/admission/plugin/priority"
	"kubecore.io/kubecore/pkg/admission/plugin/resourcequota"
	"kubecore.io/kubecore/pkg/admission/plugin/serviceaccount"
	admissionwebhook "kubecore.io/kubecore/pkg/admission/plugin/webhook"
)

// newAdmission assembles the admission chain every Store's writes pass,
// in Kubernetes' order of the plugins kubecore has: LimitRanger defaults
// and bounds pods and claims, Priority and ServiceAccount mutate new pods,
// DefaultStorageClass new claims, NodeRestriction validates what kubelets
// write, PersistentVolumeClaimResize refuses growing claims of classes
// that do not allow it, and ResourceQuota comes last, charging quotas only
// for writes every other plugin let through. The admission webhooks come
// after the built-in plugins of each phase, as in Kubernetes: the mutating
// ones after the built-in mutations, the validating ones (the Chain's
// Validate runs after the strategy's schema validation) after the built-in
// validations, both before ResourceQuota. The plugins read the objects
// through the watch cache.
func newAdmission(objects *objectReader, webhooks admissionwebhook.Plugins) admission.Chain {
	return admission.Chain{
		limitranger.New(objects),
		priority.New(objects),
		serviceaccount.New(objects),
		&defaultstorageclass.Plugin{Classes: objects},
		&noderestriction.Plugin{Objects: objects},
		&persistentvolumeclaimresize.Plugin{Classes: objects},
		webhooks.Mutating,
		webhooks.Validating,
		resourcequota.New(objects),
	}
}
