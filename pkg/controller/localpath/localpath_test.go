package localpath

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
)

func TestIsLocalPathClaim(t *testing.T) {
	class := func(s string) *string { return &s }
	for _, tc := range []struct {
		name  string
		class *string
		want  bool
	}{
		{"no class: the default, local-path", nil, true},
		{"local-path", class(ClassName), true},
		{"empty class: static binding only", class(""), false},
		{"another class: its provisioner decides", class("fast-ssd"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: tc.class}}
			if got := IsLocalPathClaim(c); got != tc.want {
				t.Errorf("IsLocalPathClaim = %v, want %v", got, tc.want)
			}
		})
	}
}
