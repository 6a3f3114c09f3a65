// Package secret serves secrets; stringData is merged into data on every
// write and never stored.
package secret

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// mergeStringData moves stringData into data; it wins over data.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// NewStrategy returns the secret strategy.
func NewStrategy() *strategy.Strategy[*corev1.Secret] {
	return &strategy.Strategy[*corev1.Secret]{
		Namespaced:         true,
		PrepareCreate:      func(_ context.Context, s *corev1.Secret) { mergeStringData(s) },
		PrepareUpdate:      func(_ context.Context, s, _ *corev1.Secret) { mergeStringData(s) },
		ValidateFunc:       validation.ValidateSecret,
		ValidateUpdateFunc: validation.ValidateSecretUpdate,
	}
}

// GetAttrs returns a secret's labels and selectable fields (type).
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, nil, fmt.Errorf("not a secret: %T", obj)
	}
	return labels.Set(s.Labels), fields.Set{"metadata.name": s.Name, "metadata.namespace": s.Namespace, "type": string(s.Type)}, nil
}

// NewREST returns the storage of secrets.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[corev1.Secret, corev1.SecretList](corev1.Resource("secrets"), "secret", NewStrategy()).Selectable(GetAttrs))
}
