// Package api_test checks that every API group registers exactly its kinds,
// each under its own Go type name and with a working deep copy.
package api_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	batchv1 "kubecore.io/api/batch/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	policyv1 "kubecore.io/api/policy/v1"
	resourcev1 "kubecore.io/api/resource/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestAddToScheme(t *testing.T) {
	for _, tc := range []struct {
		gv    schema.GroupVersion
		add   func(*runtime.Scheme) error
		kinds string
	}{
		{appsv1.SchemeGroupVersion, appsv1.AddToScheme, "ControllerRevision ControllerRevisionList DaemonSet DaemonSetList Deployment DeploymentList ReplicaSet ReplicaSetList StatefulSet StatefulSetList"},
		{autoscalingv1.SchemeGroupVersion, autoscalingv1.AddToScheme, "HorizontalPodAutoscaler HorizontalPodAutoscalerList Scale"},
		{autoscalingv2.SchemeGroupVersion, autoscalingv2.AddToScheme, "HorizontalPodAutoscaler HorizontalPodAutoscalerList"},
		{batchv1.SchemeGroupVersion, batchv1.AddToScheme, "CronJob CronJobList Job JobList"},
		{coordinationv1.SchemeGroupVersion, coordinationv1.AddToScheme, "Lease LeaseList"},
		{corev1.SchemeGroupVersion, corev1.AddToScheme, "Binding ComponentStatus ComponentStatusList ConfigMap ConfigMapList Endpoints EndpointsList Event EventList LimitRange LimitRangeList List Namespace NamespaceList Node NodeList PersistentVolume PersistentVolumeClaim PersistentVolumeClaimList PersistentVolumeList Pod PodList PodTemplate PodTemplateList ReplicationController ReplicationControllerList ResourceQuota ResourceQuotaList Secret SecretList Service ServiceAccount ServiceAccountList ServiceList"},
		{discoveryv1.SchemeGroupVersion, discoveryv1.AddToScheme, "EndpointSlice EndpointSliceList"},
		{policyv1.SchemeGroupVersion, policyv1.AddToScheme, "Eviction PodDisruptionBudget PodDisruptionBudgetList"},
		{schedulingv1.SchemeGroupVersion, schedulingv1.AddToScheme, "PriorityClass PriorityClassList"},
		{resourcev1.SchemeGroupVersion, resourcev1.AddToScheme, "DeviceClass DeviceClassList ResourceClaim ResourceClaimList ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList"},
		{storagev1.SchemeGroupVersion, storagev1.AddToScheme, "CSIDriver CSIDriverList CSINode CSINodeList CSIStorageCapacity CSIStorageCapacityList StorageClass StorageClassList VolumeAttachment VolumeAttachmentList VolumeAttributesClass VolumeAttributesClassList"},
	} {
		t.Run(tc.gv.String(), func(t *testing.T) {
			s := runtime.NewScheme()
			if err := tc.add(s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for kind, typ := range s.KnownTypes(tc.gv) {
				got = append(got, kind)
				if typ.Name() != kind {
					t.Errorf("kind %s is registered as Go type %s", kind, typ.Name())
				}
				obj, err := s.New(tc.gv.WithKind(kind))
				if err != nil {
					t.Errorf("New(%s): %v", kind, err)
					continue
				}
				if c := obj.DeepCopyObject(); c == obj {
					t.Errorf("%s: DeepCopyObject returned the same pointer", kind)
				}
			}
			slices.Sort(got)
			if want := strings.Fields(tc.kinds); !slices.Equal(got, want) {
				t.Errorf("registered kinds %v, want %v", got, want)
			}
		})
	}
}
