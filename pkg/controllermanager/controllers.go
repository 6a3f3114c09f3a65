package controllermanager

import (
	"kubecore.io/kubecore/pkg/controller/certificates"
	"kubecore.io/kubecore/pkg/controller/cronjob"
	"kubecore.io/kubecore/pkg/controller/daemonset"
	"kubecore.io/kubecore/pkg/controller/endpoints"
	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controller/job"
	"kubecore.io/kubecore/pkg/controller/localpath"
	"kubecore.io/kubecore/pkg/controller/namespace"
	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
	"kubecore.io/kubecore/pkg/controller/rootcacert"
	"kubecore.io/kubecore/pkg/controller/serviceaccount"
	"kubecore.io/kubecore/pkg/controller/statefulset"
)

// Controllers is the table of the controllers the manager can run: name ->
// the function that builds one. Each entry's start function lives beside
// the others of its area (apps.go, ...). `--controllers '*'` runs them all.
func Controllers() map[string]InitFunc {
	return map[string]InitFunc{
		"replicaset":              startReplicaSetController,
		"deployment":              startDeploymentController,
		namespace.Name:            startNamespaceController,
		garbagecollector.Name:     startGarbageCollector,
		statefulset.Name:          startStatefulSetController,
		daemonset.Name:            startDaemonSetController,
		nodelifecycle.Name:        startNodeLifecycleController,
		localpath.Name:            startLocalPathProvisioner,
		serviceaccount.Name:       startInformerController(serviceaccount.Name, serviceaccount.New),
		endpoints.Name:            startInformerController(endpoints.Name, endpoints.New),
		certificates.ApproverName: startInformerController(certificates.ApproverName, certificates.NewApprover),
		certificates.SignerName:   startCSRSigner,
		rootcacert.Name:           startRootCACertPublisher,
		job.Name:                  startJobController,
		cronjob.Name:              startCronJobController,
	}
}
