package controlplane

import (
	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/plugin/defaultstorageclass"
	"kubecore.io/kubecore/pkg/admission/plugin/noderestriction"
	"kubecore.io/kubecore/pkg/admission/plugin/persistentvolumeclaimresize"
	"kubecore.io/kubecore/pkg/admission/plugin/priority"
	"kubecore.io/kubecore/pkg/admission/plugin/serviceaccount"
)

// newAdmission assembles the admission chain every Store's writes pass,
// in Kubernetes' order of the plugins kubecore has: Priority and
// ServiceAccount mutate new pods, DefaultStorageClass new claims, NodeRestriction validates what kubelets
// write, PersistentVolumeClaimResize refuses growing claims of classes
// that do not allow it. The plugins read the objects through the watch cache.
func newAdmission(objects *objectReader) admission.Chain {
	return admission.Chain{
		priority.New(objects),
		serviceaccount.New(objects),
		&defaultstorageclass.Plugin{Classes: objects},
		&noderestriction.Plugin{Objects: objects},
		&persistentvolumeclaimresize.Plugin{Classes: objects},
	}
}
