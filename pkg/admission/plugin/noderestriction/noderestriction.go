// Package noderestriction is the NodeRestriction admission plugin: what a
// kubelet (user system:node:NAME) may write beyond what the Node authorizer
// can tell from the request alone — mirror pods of its own, its own Node
// and Lease without changing its taints or protected labels, evictions of
// its own pods and tokens bound to them. Other users pass unchecked.
// Refusals are 403 Forbidden with Kubernetes' wording.
package noderestriction

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	authenticationv1 "kubecore.io/api/authentication/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer/node"
)

// nodeOf returns the node whose kubelet makes the request in ctx, "" when
// another user does.
func nodeOf(ctx context.Context) string {
	u, _ := apirequest.UserFrom(ctx)
	return node.NodeOfUser(u)
}

func forbidden(resource, name string, format string, args ...any) error {
	return apierrors.NewForbidden(corev1.Resource(resource), name, fmt.Errorf(format, args...))
}

// admitPodCreate lets a kubelet create only mirror pods bound to itself,
// owned by its Node (of UID nodeUID when known), referring to no service
// account, secret, config map or claim.
func admitPodCreate(ctx context.Context, pod *corev1.Pod, nodeUID string) error {
	n := nodeOf(ctx)
	if n == "" {
		return nil
	}
	deny := func(format string, args ...any) error { return forbidden("pods", pod.Name, format, args...) }
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return deny("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, n)
	}
	if pod.Spec.NodeName != n {
		return deny("node %q can only create pods with spec.nodeName set to itself", n)
	}
	switch refs := pod.OwnerReferences; {
	case len(refs) > 1:
		return deny("node %q can only create pods with a single owner reference set to itself", n)
	case len(refs) == 0 || refs[0].APIVersion != "v1" || refs[0].Kind != "Node" || refs[0].Name != n:
		return deny("node %q can only create pods with an owner reference set to itself", n)
	case refs[0].Controller == nil || !*refs[0].Controller:
		return deny("node %q can only create pods with a controller owner reference set to itself", n)
	case refs[0].BlockOwnerDeletion != nil && *refs[0].BlockOwnerDeletion:
		return deny("node %q must not set blockOwnerDeletion on an owner reference", n)
	case nodeUID != "" && string(refs[0].UID) != nodeUID:
		return deny("node %s UID mismatch: expected %s got %s", n, refs[0].UID, nodeUID)
	}
	if pod.Spec.ServiceAccountName != "" {
		return deny("node %q can not create pods that reference a service account", n)
	}
	for _, resource := range []string{"secrets", "configmaps", "persistentvolumeclaims"} {
		if len(node.References(pod, resource)) > 0 {
			return deny("node %q can not create pods that reference %s", n, resource)
		}
	}
	return nil
}

// admitPodDelete lets a kubelet delete only pods bound to itself.
func admitPodDelete(ctx context.Context, pod *corev1.Pod) error {
	if n := nodeOf(ctx); n != "" && pod.Spec.NodeName != n {
		return forbidden("pods", pod.Name, "node %q can only delete pods with spec.nodeName set to itself", n)
	}
	return nil
}

// admitEviction lets a kubelet evict only pods bound to itself.
func admitEviction(ctx context.Context, pod *corev1.Pod) error {
	if n := nodeOf(ctx); n != "" && pod.Spec.NodeName != n {
		return forbidden("pods", pod.Name, "node %s can only evict pods with spec.nodeName set to itself", n)
	}
	return nil
}

// admitTokenRequest lets a kubelet ask only for tokens bound to a pod
// bound to itself; pod is the pod the request names (nil when missing).
func admitTokenRequest(ctx context.Context, sa string, tr *authenticationv1.TokenRequest, pod *corev1.Pod) error {
	n := nodeOf(ctx)
	if n == "" {
		return nil
	}
	deny := func(format string, args ...any) error { return forbidden("serviceaccounts", sa, format, args...) }
	ref := tr.Spec.BoundObjectRef
	switch {
	case ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "":
		return deny("node requested token not bound to a pod")
	case ref.UID == "":
		return deny("node requested token with a pod binding without a uid")
	case pod == nil:
		return apierrors.NewNotFound(corev1.Resource("pods"), ref.Name)
	case ref.UID != pod.UID:
		return deny("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID)
	case pod.Spec.NodeName != n:
		return deny("node requested token bound to a pod scheduled on a different node")
	}
	return nil
}

// admitNode lets a kubelet create and change only its own Node, without
// changing its taints, and setting only the labels a kubelet may set.
func admitNode(ctx context.Context, obj, old runtime.Object) error {
	n := nodeOf(ctx)
	if n == "" {
		return nil
	}
	cur, _ := obj.(*corev1.Node)
	prev, _ := old.(*corev1.Node)
	target := cur
	if target == nil {
		target = prev
	}
	if target == nil {
		return nil
	}
	if target.Name != n {
		return forbidden("nodes", target.Name, "node %q is not allowed to modify node %q", n, target.Name)
	}
	switch {
	case cur != nil && prev == nil:
		if bad := forbiddenLabels(cur.Labels, nil); len(bad) > 0 {
			return forbidden("nodes", n, "node %q is not allowed to set the following labels: %s", n, strings.Join(bad, ", "))
		}
	case cur != nil:
		if !reflect.DeepEqual(cur.Spec.Taints, prev.Spec.Taints) && (len(cur.Spec.Taints) > 0 || len(prev.Spec.Taints) > 0) {
			return forbidden("nodes", n, "node %q is not allowed to modify taints", n)
		}
		if bad := forbiddenLabels(cur.Labels, prev.Labels); len(bad) > 0 {
			return forbidden("nodes", n, "is not allowed to modify labels: %s", strings.Join(bad, ", "))
		}
	}
	return nil
}

// admitLease lets a kubelet write only the Lease of its own name in
// kube-node-lease.
func admitLease(ctx context.Context, obj, old runtime.Object) error {
	n := nodeOf(ctx)
	if n == "" {
		return nil
	}
	l, _ := obj.(*coordinationv1.Lease)
	if l == nil {
		l, _ = old.(*coordinationv1.Lease)
	}
	if l == nil {
		return nil
	}
	gr := coordinationv1.Resource("leases")
	if l.Namespace != corev1.NamespaceNodeLease {
		return apierrors.NewForbidden(gr, l.Name, fmt.Errorf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease))
	}
	if l.Name != n {
		return apierrors.NewForbidden(gr, l.Name, fmt.Errorf("can only access node lease with the same name as the requesting node"))
	}
	return nil
}

// Labels a kubelet may set on its Node: these keys, and any key in these
// namespaces or their subdomains.
var (
	kubeletLabels = []string{
		corev1.LabelHostname, corev1.LabelOSStable, corev1.LabelArchStable,
		"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
		"topology.kubernetes.io/zone", "topology.kubernetes.io/region",
		"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
		"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
	}
	kubeletLabelNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}
)

// inNamespace reports whether a label namespace is ns or a subdomain of it.
func inNamespace(labelNS, ns string) bool { return labelNS == ns || strings.HasSuffix(labelNS, "."+ns) }

// forbiddenLabels lists, sorted, the labels added, removed or changed
// between old and cur that a kubelet may not touch: those of the
// node-restriction.kubernetes.io namespace, and those of the kubernetes.io
// and k8s.io namespaces that are not a kubelet's.
func forbiddenLabels(cur, old map[string]string) []string {
	var bad []string
	check := func(key string) {
		v, inCur := cur[key]
		w, inOld := old[key]
		if inCur == inOld && v == w {
			return
		}
		labelNS, _, found := strings.Cut(key, "/")
		if !found {
			return
		}
		switch {
		case inNamespace(labelNS, "node-restriction.kubernetes.io"):
		case !inNamespace(labelNS, "kubernetes.io") && !inNamespace(labelNS, "k8s.io"):
			return
		case slices.Contains(kubeletLabels, key), slices.ContainsFunc(kubeletLabelNamespaces, func(ns string) bool { return inNamespace(labelNS, ns) }):
			return
		}
		if !slices.Contains(bad, key) {
			bad = append(bad, key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		check(k)
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		check(k)
	}
	slices.Sort(bad)
	return bad
}
