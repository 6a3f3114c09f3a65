package auth

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"
)

// secretGetter reads Secrets through the API, for authenticators under test.
type secretGetter struct{ cs *typed.Clientset }

func (g secretGetter) Secret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	s, err := g.cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return s, err
}
