// Package serviceaccount is the ServiceAccount admission plugin: a new pod
// runs as the default service account unless it names one, and gets the
// API access volume of its service account's token.
package serviceaccount

import (
	"context"
	"fmt"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Getter reads service accounts; a missing one is (nil, nil).
type Getter interface {
	ServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
}

// New returns ServiceAccount admission, a plugin of the mutating phase on
// pod creates; with a nil getter it only names the default service account.
func New(serviceAccounts Getter) admission.MutationInterface {
	return admission.PodCreateMutator(func(ctx context.Context, pod *corev1.Pod) error {
		return admitServiceAccount(ctx, serviceAccounts, pod)
	})
}

// The API access volume ServiceAccount admission adds to pods, as
// Kubernetes does: a token of the pod's service account, the cluster CA
// and the namespace, at the path clients look in.
const (
	APIAccessVolumePrefix = "kube-api-access-"
	RootCAConfigMap       = "kube-root-ca.crt"
	// APIAccessTokenSeconds is the lifetime the kubelet asks for the
	// token; 7 s over the hour tells such tokens apart.
	APIAccessTokenSeconds = 3607
)

// admitServiceAccount is the ServiceAccount admission of a new pod: it
// names the default service account when the pod names none and, unless
// the pod or its service account turns automounting off, gives the pod
// the API access volume mounted in every container that has nothing at
// corev1.ServiceAccountMountPath. Mirror pods are left alone. A service account that
// does not exist (yet) gets its pod no token volume; Kubernetes would
// refuse the pod.
func admitServiceAccount(ctx context.Context, objects Getter, pod *corev1.Pod) error {
	helper.DefaultServiceAccount(pod)
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror || objects == nil {
		return nil
	}
	if a := pod.Spec.AutomountServiceAccountToken; a != nil && !*a {
		return nil
	}
	sa, err := objects.ServiceAccount(ctx, pod.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("error looking up service account %s/%s: %w", pod.Namespace, pod.Spec.ServiceAccountName, err))
	}
	if sa == nil || pod.Spec.AutomountServiceAccountToken == nil && sa.AutomountServiceAccountToken != nil && !*sa.AutomountServiceAccountToken {
		return nil
	}
	mountAPIAccess(pod, rest.SimpleNameGenerator(APIAccessVolumePrefix))
	return nil
}

// mountAPIAccess mounts the pod's API access volume (named name unless
// the pod has one already) in each container without a mount at
// corev1.ServiceAccountMountPath, and adds the volume when a container mounts it.
func mountAPIAccess(pod *corev1.Pod, name string) {
	have := false
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, APIAccessVolumePrefix) {
			name, have = v.Name, true
			break
		}
	}
	used := false
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			taken := false
			for _, m := range c.VolumeMounts {
				taken = taken || m.MountPath == corev1.ServiceAccountMountPath
			}
			if !taken {
				c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: corev1.ServiceAccountMountPath})
				used = true
			}
		}
	}
	if have || !used {
		return
	}
	seconds, mode := int64(APIAccessTokenSeconds), corev1.ProjectedVolumeSourceDefaultMode
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &seconds, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMap},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}})
}
