package controllermanager

import (
	"kubecore.io/kubecore/pkg/controller/certificates"
	"kubecore.io/kubecore/pkg/controller/cronjob"
	"kubecore.io/kubecore/pkg/controller/daemonset"
	"kubecore.io/kubecore/pkg/controller/deployment"
	"kubecore.io/kubecore/pkg/controller/disruption"
	"kubecore.io/kubecore/pkg/controller/endpoints"
	"kubecore.io/kubecore/pkg/controller/endpointslicemirroring"
	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controller/job"
	"kubecore.io/kubecore/pkg/controller/localpath"
	"kubecore.io/kubecore/pkg/controller/namespace"
	"kubecore.io/kubecore/pkg/controller/nodeipam"
	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
	"kubecore.io/kubecore/pkg/controller/podautoscaler"
	"kubecore.io/kubecore/pkg/controller/replicaset"
	"kubecore.io/kubecore/pkg/controller/resourcequota"
	"kubecore.io/kubecore/pkg/controller/rootcacert"
	"kubecore.io/kubecore/pkg/controller/serviceaccount"
	"kubecore.io/kubecore/pkg/controller/servicecidr"
	"kubecore.io/kubecore/pkg/controller/statefulset"
	"kubecore.io/kubecore/pkg/controller/volumeprotection"
)

// Controllers is the table of the controllers the manager can run: name ->
// the function that builds one, each with its package's New(client,
// factory[, options]). `--controllers '*'` runs them all.
func Controllers() map[string]InitFunc {
	return map[string]InitFunc{
		replicaset.Name: start(replicaset.Name, func(cl Clients, cc ControllerContext) (*replicaset.Controller, error) {
			return replicaset.New(cl, cc.InformerFactory, replicaset.Options{Recorder: cc.Recorder("replicaset-controller")})
		}),
		replicaset.ReplicationControllerName: start(replicaset.ReplicationControllerName, func(cl Clients, cc ControllerContext) (*replicaset.Controller, error) {
			return replicaset.NewReplicationController(cl, cc.InformerFactory, replicaset.Options{Recorder: cc.Recorder("replication-controller")})
		}),
		resourcequota.Name: start(resourcequota.Name, func(cl Clients, cc ControllerContext) (*resourcequota.Controller, error) {
			return resourcequota.New(cl, cc.InformerFactory, resourcequota.Options{})
		}),
		deployment.Name: start(deployment.Name, func(cl Clients, cc ControllerContext) (*deployment.Controller, error) {
			return deployment.New(cl, cc.InformerFactory, deployment.Options{Recorder: cc.Recorder("deployment-controller")})
		}),
		statefulset.Name: start(statefulset.Name, func(cl Clients, cc ControllerContext) (*statefulset.Controller, error) {
			return statefulset.New(cl, cc.InformerFactory, statefulset.Options{Recorder: cc.Recorder("statefulset-controller")})
		}),
		disruption.Name: start(disruption.Name, func(cl Clients, cc ControllerContext) (*disruption.Controller, error) {
			return disruption.New(cl, cc.InformerFactory, disruption.Options{Recorder: cc.Recorder("controllermanager")})
		}),
		daemonset.Name: start(daemonset.Name, func(cl Clients, cc ControllerContext) (*daemonset.Controller, error) {
			return daemonset.New(cl, cc.InformerFactory, daemonset.Options{Recorder: cc.Recorder("daemonset-controller")})
		}),
		job.Name: start(job.Name, func(cl Clients, cc ControllerContext) (*job.Controller, error) {
			return job.New(cl, cc.InformerFactory, job.Options{Recorder: cc.Recorder("job-controller")})
		}),
		cronjob.Name: start(cronjob.Name, func(cl Clients, cc ControllerContext) (*cronjob.Controller, error) {
			return cronjob.New(cl, cc.InformerFactory, cronjob.Options{Recorder: cc.Recorder("cronjob-controller")})
		}),
		namespace.Name: start(namespace.Name, func(cl Clients, cc ControllerContext) (*namespace.Controller, error) {
			return namespace.New(cl, cc.InformerFactory)
		}),
		garbagecollector.Name: start(garbagecollector.Name, func(cl Clients, _ ControllerContext) (*garbagecollector.GarbageCollector, error) {
			return garbagecollector.New(cl, garbagecollector.Options{})
		}),
		nodelifecycle.Name: start(nodelifecycle.Name, func(cl Clients, cc ControllerContext) (*nodelifecycle.Controller, error) {
			return nodelifecycle.New(cl, cc.InformerFactory, nodelifecycle.Options{
				Recorder:               cc.Recorder("node-controller"),
				NodeMonitorGracePeriod: cc.NodeMonitorGracePeriod,
				EvictionRate:           cc.NodeEvictionRate,
			})
		}),
		nodeipam.Name: start(nodeipam.Name, func(cl Clients, cc ControllerContext) (*nodeipam.Controller, error) {
			return nodeipam.New(cl, cc.InformerFactory, nodeipam.Options{
				Recorder:         cc.Recorder("node-controller"),
				ClusterCIDR:      cc.NodeIPAM.ClusterCIDR,
				NodeCIDRMaskSize: cc.NodeIPAM.NodeCIDRMaskSize,
			})
		}),
		localpath.Name: start(localpath.Name, func(cl Clients, cc ControllerContext) (*localpath.Provisioner, error) {
			return localpath.New(cl, cc.InformerFactory, localpath.Options{Recorder: cc.Recorder("local-path-provisioner"), Dir: cc.LocalPathDir})
		}),
		serviceaccount.Name: start(serviceaccount.Name, func(cl Clients, cc ControllerContext) (*serviceaccount.Controller, error) {
			return serviceaccount.New(cl, cc.InformerFactory)
		}),
		endpoints.Name: start(endpoints.Name, func(cl Clients, cc ControllerContext) (*endpoints.Controller, error) {
			return endpoints.New(cl, cc.InformerFactory)
		}),
		endpointslicemirroring.Name: start(endpointslicemirroring.Name, func(cl Clients, cc ControllerContext) (*endpointslicemirroring.Controller, error) {
			return endpointslicemirroring.New(cl, cc.InformerFactory, endpointslicemirroring.Options{Recorder: cc.Recorder("endpoint-slice-mirroring-controller")})
		}),
		certificates.ApproverName: start(certificates.ApproverName, func(cl Clients, cc ControllerContext) (*certificates.Approver, error) {
			return certificates.NewApprover(cl, cc.InformerFactory)
		}),
		certificates.SignerName: start(certificates.SignerName, newCSRSigner),
		rootcacert.Name:         start(rootcacert.Name, newRootCACertPublisher),
		volumeprotection.PVCName: start(volumeprotection.PVCName, func(cl Clients, cc ControllerContext) (*volumeprotection.ClaimController, error) {
			return volumeprotection.NewClaimController(cl, cc.InformerFactory)
		}),
		volumeprotection.PVName: start(volumeprotection.PVName, func(cl Clients, cc ControllerContext) (*volumeprotection.VolumeController, error) {
			return volumeprotection.NewVolumeController(cl, cc.InformerFactory)
		}),
		podautoscaler.Name: start(podautoscaler.Name, newPodAutoscaler),
		servicecidr.Name: start(servicecidr.Name, func(cl Clients, cc ControllerContext) (*servicecidr.Controller, error) {
			return servicecidr.New(cl, cc.InformerFactory, servicecidr.Options{})
		}),
	}
}
