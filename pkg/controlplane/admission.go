package controlplane

import (
	"slices"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/plugin/defaultstorageclass"
	"kubecore.io/kubecore/pkg/admission/plugin/limitranger"
	"kubecore.io/kubecore/pkg/admission/plugin/noderestriction"
	"kubecore.io/kubecore/pkg/admission/plugin/persistentvolumeclaimresize"
	"kubecore.io/kubecore/pkg/admission/plugin/podsecurity"
	"kubecore.io/kubecore/pkg/admission/plugin/priority"
	"kubecore.io/kubecore/pkg/admission/plugin/resourcequota"
	"kubecore.io/kubecore/pkg/admission/plugin/serviceaccount"
	"kubecore.io/kubecore/pkg/admission/plugin/storageobjectinuseprotection"
	"kubecore.io/kubecore/pkg/admission/plugin/taintnodesbycondition"
	admissionwebhook "kubecore.io/kubecore/pkg/admission/plugin/webhook"
)

// newAdmission assembles the admission chain every Store's writes pass,
// in Kubernetes' order of the plugins kubecore has: LimitRanger defaults
// and bounds pods and claims, Priority and ServiceAccount mutate new pods,
// DefaultStorageClass new claims, NodeRestriction validates what kubelets
// write, PersistentVolumeClaimResize refuses growing claims of classes
// that do not allow it, and ResourceQuota comes last, charging quotas only
// for writes every other plugin let through. TaintNodesByCondition taints
// new nodes not-ready, StorageObjectInUseProtection puts the protection
// finalizers on new claims and volumes, and PodSecurity applies the
// namespaces' Pod Security Standards. The admission webhooks come after the
// built-in plugins of each phase, as in Kubernetes: the mutating ones after
// the built-in mutations, the validating ones (the Chain's Validate runs
// after the strategy's schema validation) after the built-in validations,
// both before ResourceQuota. The plugins read the objects through the watch
// cache. The plugins named in disabled (by their Kubernetes names) are left
// out, as --disable-admission-plugins does.
func newAdmission(objects *objectReader, webhooks admissionwebhook.Plugins, disabled []string) admission.Chain {
	return withoutPlugins(admission.Chain{
		limitranger.New(objects),
		priority.New(objects),
		serviceaccount.New(objects),
		&defaultstorageclass.Plugin{Classes: objects},
		storageobjectinuseprotection.Plugin{},
		&noderestriction.Plugin{Objects: objects},
		taintnodesbycondition.Plugin{},
		&podsecurity.Plugin{Objects: objects},
		&persistentvolumeclaimresize.Plugin{Classes: objects},
		webhooks.Mutating,
		webhooks.Validating,
		resourcequota.New(objects),
	}, disabled)
}

// namedPlugin is a plugin that can be disabled by its name.
type namedPlugin interface{ Name() string }

// DisableableAdmissionPlugins returns the names of the plugins
// Config.DisableAdmissionPlugins may name.
func DisableableAdmissionPlugins() []string {
	return []string{podsecurity.Name, storageobjectinuseprotection.Name, taintnodesbycondition.Name}
}

// withoutPlugins drops from chain the plugins named in disabled.
func withoutPlugins(chain admission.Chain, disabled []string) admission.Chain {
	return slices.DeleteFunc(chain, func(p admission.Interface) bool {
		n, ok := p.(namedPlugin)
		return ok && slices.Contains(disabled, n.Name())
	})
}
