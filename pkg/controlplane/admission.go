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
)

// newAdmission assembles the admission chain every Store's writes pass,
// in Kubernetes' order of the plugins kubecore has: LimitRanger defaults
// and bounds pods and claims, Priority and ServiceAccount mutate new pods,
// DefaultStorageClass new claims, NodeRestriction validates what kubelets
// write, PersistentVolumeClaimResize refuses growing claims of classes
// that do not allow it, and ResourceQuota comes last, charging quotas only
// for writes every other plugin let through. The plugins read the objects
// through the watch cache.
func newAdmission(objects *objectReader) admission.Chain {
	return admission.Chain{
		limitranger.New(objects),
		priority.New(objects),
		serviceaccount.New(objects),
		&defaultstorageclass.Plugin{Classes: objects},
		&noderestriction.Plugin{Objects: objects},
		&persistentvolumeclaimresize.Plugin{Classes: objects},
		resourcequota.New(objects),
	}
}
