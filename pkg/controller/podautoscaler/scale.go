package podautoscaler

import (
	"context"
	"fmt"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// TypedScales is the scale subresource of the built-in scalable kinds
// (apps/v1 Deployment, ReplicaSet, StatefulSet; v1
// ReplicationController) through the typed clients. A target of another
// kind (a custom resource with a scale subresource) fails with
// FailedGetScale: kubecore's controller does not resolve kinds through
// discovery.
type TypedScales struct {
	Client Client
}

var _ ScaleClient = TypedScales{}

type scaler interface {
	GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error)
	UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error)
}

func (s TypedScales) scaler(namespace string, ref autoscalingv2.CrossVersionObjectReference) (scaler, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid API version in scale target reference: %w", err)
	}
	switch {
	case gv.Group == "apps" && ref.Kind == "Deployment":
		return s.Client.AppsV1().Deployments(namespace), nil
	case gv.Group == "apps" && ref.Kind == "ReplicaSet":
		return s.Client.AppsV1().ReplicaSets(namespace), nil
	case gv.Group == "apps" && ref.Kind == "StatefulSet":
		return s.Client.AppsV1().StatefulSets(namespace), nil
	case gv.Group == "" && ref.Kind == "ReplicationController":
		return s.Client.CoreV1().ReplicationControllers(namespace), nil
	}
	return nil, fmt.Errorf("unable to determine resource for scale target reference: no scale subresource known for %s %q", gv.WithKind(ref.Kind), ref.Name)
}

// GetScale reads the target's scale.
func (s TypedScales) GetScale(ctx context.Context, namespace string, ref autoscalingv2.CrossVersionObjectReference) (*autoscalingv1.Scale, error) {
	sc, err := s.scaler(namespace, ref)
	if err != nil {
		return nil, err
	}
	return sc.GetScale(ctx, ref.Name, metav1.GetOptions{})
}

// UpdateScale writes the target's scale.
func (s TypedScales) UpdateScale(ctx context.Context, namespace string, ref autoscalingv2.CrossVersionObjectReference, scale *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	sc, err := s.scaler(namespace, ref)
	if err != nil {
		return nil, err
	}
	return sc.UpdateScale(ctx, ref.Name, scale, metav1.UpdateOptions{})
}
