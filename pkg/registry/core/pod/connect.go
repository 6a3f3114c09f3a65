package pod

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// KubeletConnectionGetter finds the kubelet of a node
// (node.KubeletConnections).
type KubeletConnectionGetter interface {
	GetConnectionInfo(ctx context.Context, nodeName string) (*node.ConnectionInfo, error)
}

// maxKubeletErrorBytes bounds how much of a kubelet's error body is read.
const maxKubeletErrorBytes = 64 << 10

// getPod reads pod name of ctx's namespace.
func getPod(ctx context.Context, pods rest.Getter, name string) (*corev1.Pod, error) {
	obj, err := pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("not a pod: %T", obj))
	}
	return pod, nil
}

// resolveContainer returns the container a log or exec request means: the
// one named, which must be one of the pod's, or the only one.
func resolveContainer(pod *corev1.Pod, name string) (string, error) {
	if name == "" {
		if len(pod.Spec.Containers) == 1 {
			return pod.Spec.Containers[0].Name, nil
		}
		msg := fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", pod.Name, containerNames(pod.Spec.Containers))
		if len(pod.Spec.InitContainers) > 0 {
			msg += fmt.Sprintf(" or one of the init containers: [%s]", containerNames(pod.Spec.InitContainers))
		}
		return "", apierrors.NewBadRequest(msg)
	}
	if !hasContainer(pod, name) {
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name))
	}
	return name, nil
}

func containerNames(cs []corev1.Container) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, " ")
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// kubeletLocation is the URL of path (containerLogs, exec, portForward)
// for the container (or, without one, the pod) on the kubelet, and the
// transport to reach it.
func kubeletLocation(info *node.ConnectionInfo, path string, pod *corev1.Pod, container string, query url.Values, skipVerify bool) (*url.URL, http.RoundTripper) {
	rt := info.Transport
	if skipVerify {
		rt = info.InsecureSkipTLSVerifyTransport
	}
	return &url.URL{
		Scheme:   info.Scheme,
		Host:     info.Host(),
		Path:     strings.TrimSuffix("/"+path+"/"+pod.Namespace+"/"+pod.Name+"/"+container, "/"),
		RawQuery: query.Encode(),
	}, rt
}

// boolParam reads an optional boolean query parameter.
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for query parameter %s: must be a boolean", v, name))
	}
	return b, nil
}

// proxyError is the Status of a kubelet that could not be reached: a 500
// whose message is the transport's error, as Kubernetes answers.
func proxyError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error(),
	}}
}

// kubeletError reads a kubelet's failed response and returns the Status
// the apiserver answers with: the kubelet's message with its code, or,
// for a container the kubelet does not have (yet, or any more), the
// reason the pod's status gives, worded as Kubernetes' kubelet does.
func kubeletError(resp *http.Response, pod *corev1.Pod, container string, previous bool) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKubeletErrorBytes))
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("read the kubelet's answer: %w", err))
	}
	msg := strings.TrimSpace(string(body))
	switch resp.StatusCode {
	case http.StatusNotFound:
		if err := containerStatusError(pod, container, previous); err != nil {
			return err
		}
		return apierrors.NewGenericServerResponse(resp.StatusCode, "", corev1.Resource("pods"), pod.Name, msg, 0, false)
	case http.StatusBadRequest:
		return apierrors.NewBadRequest(msg)
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(fmt.Errorf("%s", msg))
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, "", corev1.Resource("pods"), pod.Name, msg, 0, false)
}

// containerStatusError explains from the pod's status why its kubelet has
// no container to read or exec in; nil when the status does not say.
func containerStatusError(pod *corev1.Pod, container string, previous bool) error {
	var st *corev1.ContainerStatus
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == container {
				st = &list[i]
			}
		}
	}
	if st == nil {
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is not available", container, pod.Name))
	}
	lastTerminated := st.LastTerminationState.Terminated != nil && st.LastTerminationState.Terminated.ContainerID != ""
	if previous {
		if !lastTerminated {
			return apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod.Name))
		}
		return nil
	}
	if w := st.State.Waiting; w != nil && !lastTerminated {
		switch w.Reason {
		case "ErrImagePull":
			return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: trying and failing to pull image", container, pod.Name))
		case "ImagePullBackOff":
			return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: image can't be pulled", container, pod.Name))
		}
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod.Name, w.Reason))
	}
	return nil
}
