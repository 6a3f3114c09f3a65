package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

func joined(errs field.ErrorList) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "; ")
}

func ptr[T any](v T) *T { return &v }

func storageClass(mutate func(*storagev1.StorageClass)) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: "fast", ResourceVersion: "1"},
		Provisioner:       "example.com/disk",
		ReclaimPolicy:     ptr(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr(storagev1.VolumeBindingImmediate),
	}
	if mutate != nil {
		mutate(sc)
	}
	return sc
}

func TestValidateStorageClass(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*storagev1.StorageClass)
		want   string
	}{
		{"valid", nil, ""},
		{"no provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "" }, "provisioner: Required value"},
		{"bad provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "a/b/c" }, `provisioner: Invalid value: "a/b/c": a qualified name must consist of`},
		{"reclaim policy", func(sc *storagev1.StorageClass) { sc.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimRecycle) },
			`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`},
		{"binding mode", func(sc *storagev1.StorageClass) { sc.VolumeBindingMode = ptr(storagev1.VolumeBindingMode("Later")) },
			`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`},
		{"no binding mode", func(sc *storagev1.StorageClass) { sc.VolumeBindingMode = nil }, "volumeBindingMode: Required value"},
		{"topology without values", func(sc *storagev1.StorageClass) {
			sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "zone"}}}}
		}, "allowedTopologies[0].matchLabelExpressions[0].values: Required value: must specify as least one value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := joined(ValidateStorageClass(storageClass(tc.mutate)))
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateStorageClassUpdate(t *testing.T) {
	old := storageClass(nil)
	for _, tc := range []struct {
		name   string
		mutate func(*storagev1.StorageClass)
		want   string
	}{
		{"expansion may change", func(sc *storagev1.StorageClass) { sc.AllowVolumeExpansion = ptr(true) }, ""},
		{"provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "example.com/other" }, "provisioner: Forbidden: updates to provisioner are forbidden."},
		{"parameters", func(sc *storagev1.StorageClass) { sc.Parameters = map[string]string{"a": "b"} }, "parameters: Forbidden: updates to parameters are forbidden."},
		{"reclaim", func(sc *storagev1.StorageClass) { sc.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimRetain) }, "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."},
		{"binding", func(sc *storagev1.StorageClass) {
			sc.VolumeBindingMode = ptr(storagev1.VolumeBindingWaitForFirstConsumer)
		}, `volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := joined(ValidateStorageClassUpdate(storageClass(tc.mutate), old))
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateOthers(t *testing.T) {
	pv := "pv-1"
	for _, tc := range []struct {
		name string
		errs field.ErrorList
		want string
	}{
		{"csidriver valid", ValidateCSIDriver(&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "csi.example.com"}, Spec: storagev1.CSIDriverSpec{
			AttachRequired: ptr(true), PodInfoOnMount: ptr(false), StorageCapacity: ptr(false), RequiresRepublish: ptr(false)}}), ""},
		{"csidriver bad mode", ValidateCSIDriver(&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "csi.example.com"}, Spec: storagev1.CSIDriverSpec{
			AttachRequired: ptr(true), PodInfoOnMount: ptr(false), StorageCapacity: ptr(false), RequiresRepublish: ptr(false),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{"Forever"}, TokenRequests: []storagev1.TokenRequest{{Audience: "a", ExpirationSeconds: ptr(int64(60))}}}}),
			`spec.volumeLifecycleModes[0]: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"; spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`},
		{"csinode", ValidateCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "csi.example.com", NodeID: "n1"}, {Name: "csi.example.com"}}}}),
			`spec.drivers[1].name: Duplicate value: "csi.example.com"; spec.drivers[1].nodeID: Required value`},
		{"capacity", ValidateCSIStorageCapacity(&storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Capacity: ptr(resource.MustParse("-1Gi"))}),
			`storageClassName: Required value; capacity: Invalid value: "-1Gi": must be greater than or equal to 0`},
		{"attachment without source", ValidateVolumeAttachment(&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va"}, Spec: storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com"}}),
			`spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName; spec.nodeName: Required value: node name is required`},
		{"attachment update", ValidateVolumeAttachmentUpdate(
			&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va", ResourceVersion: "1"}, Spec: storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "b", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}}},
			&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va"}, Spec: storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "a", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}}}),
			"spec: Invalid value:"},
		{"attributes class", ValidateVolumeAttributesClass(&storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "gold"}}), "driverName: Required value"},
		{"attributes class update", ValidateVolumeAttributesClassUpdate(
			&storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "gold", ResourceVersion: "1"}, DriverName: "csi.example.com", Parameters: map[string]string{"iops": "2"}},
			&storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "gold", ResourceVersion: "1"}, DriverName: "csi.example.com", Parameters: map[string]string{"iops": "1"}}),
			`parameters: Invalid value: {"iops":"2"}: field is immutable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := joined(tc.errs)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
