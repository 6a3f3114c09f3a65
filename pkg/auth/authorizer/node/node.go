// Package node is the Node authorizer: a kubelet (user system:node:NAME in
// group system:nodes) may read what the pods bound to its node need —
// their secrets, config maps, claims and volumes — request tokens of their
// service accounts, and write only its own Node, its own Lease and the
// pods bound to it.
package node

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
)

// Identity of kubelets.
const (
	NodesGroup     = "system:nodes"
	NodeUserPrefix = "system:node:"
	LeaseNamespace = "kube-node-lease"
)

// Graph answers what the authorizer needs to know about pods and claims,
// typically from the watch cache. Missing objects are (nil, nil).
type Graph interface {
	PodsOnNode(ctx context.Context, node string) ([]*corev1.Pod, error)
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	PersistentVolumeClaim(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error)
}

// Authorizer is the Node authorizer.
type Authorizer struct {
	Graph Graph
}

var _ authorizer.Authorizer = (*Authorizer)(nil)

// NodeName returns the node of a kubelet's user, "" for other users.
func NodeName(a authorizer.Attributes) string { return NodeOfUser(a.User) }

// NodeOfUser returns the node of a kubelet's user (system:node:NAME in
// system:nodes), "" for other users.
func NodeOfUser(u *apirequest.UserInfo) string {
	if u == nil || !slices.Contains(u.Groups, NodesGroup) {
		return ""
	}
	name, ok := strings.CutPrefix(u.Name, NodeUserPrefix)
	if !ok {
		return ""
	}
	return name
}

func isRead(verb string) bool { return verb == "get" || verb == "list" || verb == "watch" }

// Authorize implements authorizer.Authorizer.
func (z *Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	node := NodeName(a)
	r := a.Request
	if node == "" || r == nil || !r.IsResourceRequest {
		return authorizer.NoOpinion, "", nil
	}
	deny := func(format string, args ...any) (authorizer.Decision, string, error) {
		return authorizer.Deny, fmt.Sprintf(format, args...), nil
	}
	switch r.APIGroup + "/" + r.Resource {
	case "/nodes":
		if isRead(r.Verb) || r.Verb == "create" {
			return authorizer.Allow, "", nil // a new Node's name is checked at admission
		}
		if r.Name != node {
			return deny("node '%s' cannot modify node '%s'", node, r.Name)
		}
		return authorizer.Allow, "", nil
	case "/pods":
		switch {
		case isRead(r.Verb), r.Verb == "create" && r.Subresource == "", r.Subresource == "eviction" && r.Verb == "create":
			return authorizer.Allow, "", nil // mirror pods are checked at admission
		case r.Verb == "delete" && r.Subresource == "", (r.Verb == "update" || r.Verb == "patch") && r.Subresource == "status":
			pod, err := z.Graph.Pod(ctx, r.Namespace, r.Name)
			if err != nil {
				return authorizer.NoOpinion, "", err
			}
			if pod == nil {
				// Nothing to protect: the store answers 404, which a
				// kubelet cleaning up a force-deleted pod takes as done.
				return authorizer.Allow, "", nil
			}
			if pod.Spec.NodeName != node {
				return deny("node '%s' can only modify pods bound to it", node)
			}
			return authorizer.Allow, "", nil
		}
		return deny("node '%s' cannot %s pods/%s", node, r.Verb, r.Subresource)
	case "/serviceaccounts":
		if r.Subresource != "token" || r.Verb != "create" {
			return authorizer.NoOpinion, "", nil
		}
		// The token's binding to one of these pods is checked at admission.
		ok, err := z.referenced(ctx, node, "serviceaccounts", r.Namespace, r.Name)
		if err != nil || ok {
			return decision(ok), "", err
		}
		return deny("no relationship found between node '%s' and this object", node)
	case "/services", "/endpoints", "/namespaces", "discovery.k8s.io/endpointslices":
		// Endpoint slices too: a kubelet may run the service proxy.
		if isRead(r.Verb) {
			return authorizer.Allow, "", nil
		}
	case "/events", "events.k8s.io/events":
		if r.Verb == "create" || r.Verb == "patch" || r.Verb == "update" {
			return authorizer.Allow, "", nil
		}
	case "coordination.k8s.io/leases":
		if r.Namespace != LeaseNamespace {
			return authorizer.NoOpinion, "", nil
		}
		if r.Verb == "create" || r.Name == node {
			return authorizer.Allow, "", nil
		}
		return deny("node '%s' can only access its own lease", node)
	case "/secrets", "/configmaps", "/persistentvolumeclaims":
		if r.Verb != "get" && !(r.Name != "" && (r.Verb == "list" || r.Verb == "watch")) {
			return deny("node '%s' can only get individual %s", node, r.Resource)
		}
		ok, err := z.referenced(ctx, node, r.Resource, r.Namespace, r.Name)
		if err != nil || ok {
			return decision(ok), "", err
		}
		return deny("no relationship found between node '%s' and this object", node)
	case "/persistentvolumes":
		if r.Verb != "get" {
			return deny("node '%s' can only get individual persistentvolumes", node)
		}
		ok, err := z.volumeUsed(ctx, node, r.Name)
		if err != nil || ok {
			return decision(ok), "", err
		}
		return deny("no relationship found between node '%s' and this object", node)
	case "certificates.k8s.io/certificatesigningrequests", "authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews":
		// The objects themselves only: a CSR's subresources (nodeclient,
		// selfnodeclient, approval) are RBAC's to grant.
		if r.Subresource == "" && (r.Verb == "create" || r.Resource == "certificatesigningrequests" && isRead(r.Verb)) {
			return authorizer.Allow, "", nil
		}
	}
	return authorizer.NoOpinion, "", nil
}

func decision(ok bool) authorizer.Decision {
	if ok {
		return authorizer.Allow
	}
	return authorizer.NoOpinion
}

// referenced reports whether a pod bound to node uses the object.
func (z *Authorizer) referenced(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	pods, err := z.Graph.PodsOnNode(ctx, node)
	if err != nil {
		return false, err
	}
	for _, p := range pods {
		if p.Namespace == namespace && slices.Contains(References(p, resource), name) {
			return true, nil
		}
	}
	return false, nil
}

// volumeUsed reports whether a claim of a pod bound to node is bound to
// the persistent volume pv.
func (z *Authorizer) volumeUsed(ctx context.Context, node, pv string) (bool, error) {
	pods, err := z.Graph.PodsOnNode(ctx, node)
	if err != nil {
		return false, err
	}
	for _, p := range pods {
		for _, claim := range References(p, "persistentvolumeclaims") {
			pvc, err := z.Graph.PersistentVolumeClaim(ctx, p.Namespace, claim)
			if err != nil {
				return false, err
			}
			if pvc != nil && pvc.Spec.VolumeName == pv {
				return true, nil
			}
		}
	}
	return false, nil
}

// References lists the names of the objects of resource (secrets,
// configmaps, persistentvolumeclaims or serviceaccounts) that pod uses: in
// volumes, projected volumes, env, envFrom and image pull secrets, or as
// its service account.
func References(pod *corev1.Pod, resource string) []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if resource == "serviceaccounts" {
		add(pod.Spec.ServiceAccountName)
		return out
	}
	for _, v := range pod.Spec.Volumes {
		switch resource {
		case "secrets":
			if v.Secret != nil {
				add(v.Secret.SecretName)
			}
		case "configmaps":
			if v.ConfigMap != nil {
				add(v.ConfigMap.Name)
			}
		case "persistentvolumeclaims":
			if v.PersistentVolumeClaim != nil {
				add(v.PersistentVolumeClaim.ClaimName)
			}
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if resource == "secrets" && src.Secret != nil {
					add(src.Secret.Name)
				}
				if resource == "configmaps" && src.ConfigMap != nil {
					add(src.ConfigMap.Name)
				}
			}
		}
	}
	if resource == "secrets" {
		for _, s := range pod.Spec.ImagePullSecrets {
			add(s.Name)
		}
	}
	containers := append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, c := range containers {
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if resource == "secrets" && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
			if resource == "configmaps" && e.ValueFrom.ConfigMapKeyRef != nil {
				add(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if resource == "secrets" && e.SecretRef != nil {
				add(e.SecretRef.Name)
			}
			if resource == "configmaps" && e.ConfigMapRef != nil {
				add(e.ConfigMapRef.Name)
			}
		}
	}
	return out
}
