//go:build !linux

package kubelet

import (
	"errors"

	corev1 "kubecore.io/api/core/v1"
)

// mountMemoryEmptyDir: a tmpfs emptyDir needs Linux.
func mountMemoryEmptyDir(string, *corev1.EmptyDirVolumeSource) error {
	return errors.New("an emptyDir of medium Memory is a tmpfs mount, which this kubelet makes on Linux only")
}

// unmountUnder has nothing to unmount where no tmpfs is mounted.
func unmountUnder(string) error { return nil }
