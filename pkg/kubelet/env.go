package kubelet

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// ObjectGetter reads the config maps and secrets pods refer to, and the
// Services whose environment variables they get.
type ObjectGetter interface {
	ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// Services returns every Service of the cluster (none for a kubelet
	// without an API server).
	Services(ctx context.Context) ([]*corev1.Service, error)
}

// podIPs are the addresses the downward API exposes.
type podIPs struct{ hostIP, podIP string }

// containerEnv resolves a container's environment in Kubernetes' order:
// envFrom sources, then env entries, each expanding $(VAR) references to
// the variables before it or to the Services' variables, then the
// Services' variables (serviceEnv) that neither set.
func containerEnv(ctx context.Context, objs ObjectGetter, pod *corev1.Pod, c *corev1.Container, ips podIPs, allocatable corev1.ResourceList) ([]kruntime.KeyValue, error) {
	services, err := objs.Services(ctx)
	if err != nil {
		return nil, fmt.Errorf("service environment variables: %w", err)
	}
	svcEnv := serviceEnv(pod, services)
	var order []string
	vals := map[string]string{}
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for i, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm, err := objs.ConfigMap(ctx, pod.Namespace, from.ConfigMapRef.Name)
			if err != nil {
				if apierrors.IsNotFound(err) && isTrue(from.ConfigMapRef.Optional) {
					continue
				}
				return nil, fmt.Errorf("envFrom[%d]: %w", i, notFound(err, "configmap", from.ConfigMapRef.Name))
			}
			for k, v := range cm.Data {
				set(from.Prefix+k, v)
			}
		case from.SecretRef != nil:
			s, err := objs.Secret(ctx, pod.Namespace, from.SecretRef.Name)
			if err != nil {
				if apierrors.IsNotFound(err) && isTrue(from.SecretRef.Optional) {
					continue
				}
				return nil, fmt.Errorf("envFrom[%d]: %w", i, notFound(err, "secret", from.SecretRef.Name))
			}
			for k, v := range s.Data {
				set(from.Prefix+k, string(v))
			}
		}
	}
	lookup := func(name string) (string, bool) {
		if v, ok := vals[name]; ok {
			return v, true
		}
		v, ok := svcEnv[name]
		return v, ok
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, lookup))
			continue
		}
		v, ok, err := envSource(ctx, objs, pod, c, e.ValueFrom, ips, allocatable)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		if ok {
			set(e.Name, v)
		}
	}
	for _, k := range sortedKeys(svcEnv) {
		if _, ok := vals[k]; !ok {
			set(k, svcEnv[k])
		}
	}
	out := make([]kruntime.KeyValue, 0, len(order))
	for _, k := range order {
		out = append(out, kruntime.KeyValue{Key: k, Value: vals[k]})
	}
	return out, nil
}

// notFound turns a NotFound API error into Kubernetes' short message.
func notFound(err error, kind, name string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s %q not found", kind, name)
	}
	return err
}

func isTrue(b *bool) bool { return b != nil && *b }

// envSource resolves one valueFrom; ok is false for an optional value
// that is missing.
func envSource(ctx context.Context, objs ObjectGetter, pod *corev1.Pod, c *corev1.Container, src *corev1.EnvVarSource, ips podIPs, allocatable corev1.ResourceList) (string, bool, error) {
	switch {
	case src.FieldRef != nil:
		v, err := podField(pod, src.FieldRef.FieldPath, ips)
		return v, err == nil, err
	case src.ResourceFieldRef != nil:
		v, err := containerResource(pod, c, src.ResourceFieldRef, allocatable)
		return v, err == nil, err
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		cm, err := objs.ConfigMap(ctx, pod.Namespace, ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && isTrue(ref.Optional) {
				return "", false, nil
			}
			return "", false, notFound(err, "configmap", ref.Name)
		}
		if v, ok := cm.Data[ref.Key]; ok {
			return v, true, nil
		}
		if v, ok := cm.BinaryData[ref.Key]; ok {
			return string(v), true, nil
		}
		if isTrue(ref.Optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("couldn't find key %s in ConfigMap %s/%s", ref.Key, pod.Namespace, ref.Name)
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		s, err := objs.Secret(ctx, pod.Namespace, ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && isTrue(ref.Optional) {
				return "", false, nil
			}
			return "", false, notFound(err, "secret", ref.Name)
		}
		if v, ok := s.Data[ref.Key]; ok {
			return string(v), true, nil
		}
		if isTrue(ref.Optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, pod.Namespace, ref.Name)
	}
	return "", false, fmt.Errorf("valueFrom: no source set")
}

// podField reads a downward API field of the pod.
func podField(pod *corev1.Pod, path string, ips podIPs) (string, error) {
	if key, ok := subscript(path, "metadata.labels"); ok {
		return pod.Labels[key], nil
	}
	if key, ok := subscript(path, "metadata.annotations"); ok {
		return pod.Annotations[key], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs":
		return ips.hostIP, nil
	case "status.podIP", "status.podIPs":
		return ips.podIP, nil
	}
	return "", fmt.Errorf("fieldRef: unsupported fieldPath %q", path)
}

// subscript reads KEY from "prefix['KEY']".
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "']")
}

// formatMap writes a map as the downward API does: key="value" lines,
// sorted by key.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s=%q", k, m[k])
	}
	return b.String()
}

// containerResource reads a request or limit of a container, divided by
// the divisor and rounded up; an unset limit is the node's allocatable.
func containerResource(pod *corev1.Pod, c *corev1.Container, sel *corev1.ResourceFieldSelector, allocatable corev1.ResourceList) (string, error) {
	target := c
	if sel.ContainerName != "" && sel.ContainerName != c.Name {
		target = nil
		for i := range pod.Spec.Containers {
			if pod.Spec.Containers[i].Name == sel.ContainerName {
				target = &pod.Spec.Containers[i]
			}
		}
		if target == nil {
			return "", fmt.Errorf("resourceFieldRef: no container %q", sel.ContainerName)
		}
	}
	kind, name, ok := strings.Cut(sel.Resource, ".")
	if !ok || (kind != "limits" && kind != "requests") {
		return "", fmt.Errorf("resourceFieldRef: unsupported resource %q", sel.Resource)
	}
	list := target.Resources.Limits
	if kind == "requests" {
		list = target.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		if kind == "requests" {
			return "0", nil
		}
		q, ok = allocatable[corev1.ResourceName(name)]
		if !ok {
			return "", fmt.Errorf("resourceFieldRef: unsupported resource %q", sel.Resource)
		}
	}
	divisor := sel.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	var v float64
	if name == string(corev1.ResourceCPU) {
		v = math.Ceil(float64(q.MilliValue()) / float64(divisor.MilliValue()))
	} else {
		v = math.Ceil(float64(q.Value()) / float64(divisor.Value()))
	}
	return fmt.Sprintf("%d", int64(v)), nil
}

// expand replaces $(VAR) with the value lookup gives; unknown references
// stay as written and $$ is a literal dollar.
func expand(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 3 + end
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String()
}
