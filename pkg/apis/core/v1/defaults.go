// Package v1 registers the core/v1 kinds with a server's scheme together
// with the defaults the API server applies to them when it decodes a request.
package v1

import (
	"maps"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// DefaultSchedulerName is the scheduler of pods that name none.
const DefaultSchedulerName = "default-scheduler"

// DefaultTerminationGracePeriodSeconds is a pod's grace period when it sets
// none.
const DefaultTerminationGracePeriodSeconds int64 = 30

// AddToScheme registers the core/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := corev1.AddToScheme(s); err != nil {
		return err
	}
	RegisterDefaults(s)
	return nil
}

// RegisterDefaults adds the core/v1 defaulting functions to s.
func RegisterDefaults(s *runtime.Scheme) {
	runtime.AddDefaultingFunc(s, SetDefaultsPod)
	runtime.AddDefaultingFunc(s, func(t *corev1.PodTemplate) { SetDefaultsPodTemplateSpec(&t.Template) })
	runtime.AddDefaultingFunc(s, SetDefaultsService)
	runtime.AddDefaultingFunc(s, SetDefaultsSecret)
	runtime.AddDefaultingFunc(s, SetDefaultsNamespace)
	runtime.AddDefaultingFunc(s, SetDefaultsNode)
	runtime.AddDefaultingFunc(s, SetDefaultsPersistentVolumeClaim)
	runtime.AddDefaultingFunc(s, SetDefaultsPersistentVolume)
	runtime.AddDefaultingFunc(s, SetDefaultsEndpoints)
	runtime.AddDefaultingFunc(s, SetDefaultsReplicationController)
	runtime.AddDefaultingFunc(s, SetDefaultsLimitRange)
}

func ptr[T any](v T) *T { return &v }

// SetDefaultsPod defaults a pod's spec and status.
func SetDefaultsPod(p *corev1.Pod) {
	SetDefaultsPodSpec(&p.Spec)
	if p.Spec.EnableServiceLinks == nil {
		p.Spec.EnableServiceLinks = ptr(true)
	}
	if p.Spec.HostNetwork {
		for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range cs {
				for j := range cs[i].Ports {
					if cs[i].Ports[j].HostPort == 0 {
						cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
	// Requests default to the limits of the same resource.
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; ok {
					continue
				}
				if r.Requests == nil {
					r.Requests = corev1.ResourceList{}
				}
				r.Requests[name] = q.DeepCopy()
			}
		}
	}
}

// SetDefaultsPodTemplateSpec defaults the pod template of a workload.
func SetDefaultsPodTemplateSpec(t *corev1.PodTemplateSpec) {
	SetDefaultsPodSpec(&t.Spec)
}

// SetDefaultsPodSpec defaults a pod spec, wherever it appears.
func SetDefaultsPodSpec(s *corev1.PodSpec) {
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr(DefaultTerminationGracePeriodSeconds)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	for i := range s.InitContainers {
		SetDefaultsContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		SetDefaultsContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		c := &s.EphemeralContainers[i].EphemeralContainerCommon
		if c.TerminationMessagePath == "" {
			c.TerminationMessagePath = corev1.TerminationMessagePathDefault
		}
		if c.TerminationMessagePolicy == "" {
			c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		}
		if c.ImagePullPolicy == "" {
			c.ImagePullPolicy = defaultPullPolicy(c.Image)
		}
	}
	for i := range s.Volumes {
		setDefaultsVolume(&s.Volumes[i])
	}
}

// defaultPullPolicy is Always for an image without a tag or tagged
// latest, IfNotPresent otherwise (a digest counts as a tag).
func defaultPullPolicy(image string) corev1.PullPolicy {
	if strings.Contains(image, "@") {
		return corev1.PullIfNotPresent
	}
	name := image
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	tag := ""
	if i := strings.LastIndex(name, ":"); i >= 0 {
		tag = name[i+1:]
	}
	if tag == "" || tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// SetDefaultsContainer defaults one container.
func SetDefaultsContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		setDefaultsProbe(p)
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil && vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
			vf.FieldRef.APIVersion = "v1"
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				setDefaultsHTTPGet(h.HTTPGet)
			}
		}
	}
}

func setDefaultsProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	setDefaultsHTTPGet(p.HTTPGet)
}

func setDefaultsHTTPGet(a *corev1.HTTPGetAction) {
	if a == nil {
		return
	}
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = corev1.URISchemeHTTP
	}
}

func setDefaultsVolume(v *corev1.Volume) {
	vs := &v.VolumeSource
	switch {
	case vs.HostPath != nil:
		if vs.HostPath.Type == nil {
			vs.HostPath.Type = ptr(corev1.HostPathUnset)
		}
	case vs.Secret != nil:
		if vs.Secret.DefaultMode == nil {
			vs.Secret.DefaultMode = ptr(corev1.SecretVolumeSourceDefaultMode)
		}
	case vs.ConfigMap != nil:
		if vs.ConfigMap.DefaultMode == nil {
			vs.ConfigMap.DefaultMode = ptr(corev1.ConfigMapVolumeSourceDefaultMode)
		}
	case vs.DownwardAPI != nil:
		if vs.DownwardAPI.DefaultMode == nil {
			vs.DownwardAPI.DefaultMode = ptr(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
	case vs.Projected != nil:
		if vs.Projected.DefaultMode == nil {
			vs.Projected.DefaultMode = ptr(corev1.ProjectedVolumeSourceDefaultMode)
		}
	case vs.EmptyDir != nil, vs.NFS != nil, vs.PersistentVolumeClaim != nil, vs.CSI != nil, vs.Ephemeral != nil, vs.Image != nil:
	default:
		// A volume with no source is an empty directory.
		vs.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
}

// SetDefaultsService defaults a service's type, affinity and ports.
func SetDefaultsService(s *corev1.Service) {
	sp := &s.Spec
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		if sp.SessionAffinityConfig == nil {
			sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{}
		}
		if sp.SessionAffinityConfig.ClientIP == nil {
			sp.SessionAffinityConfig.ClientIP = &corev1.ClientIPConfig{}
		}
		if sp.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
			sp.SessionAffinityConfig.ClientIP.TimeoutSeconds = ptr(corev1.DefaultClientIPServiceAffinitySeconds)
		}
	}
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == (intstr.IntOrString{}) {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if (sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer) && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.Type != corev1.ServiceTypeExternalName && sp.InternalTrafficPolicy == nil {
		sp.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		sp.AllocateLoadBalancerNodePorts = ptr(true)
	}
}

// SetDefaultsSecret makes an untyped secret Opaque.
func SetDefaultsSecret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// SetDefaultsNamespace labels a namespace with its name and makes a new
// one Active.
func SetDefaultsNamespace(ns *corev1.Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}

// SetDefaultsNode makes a node's allocatable its capacity when unset.
func SetDefaultsNode(n *corev1.Node) {
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = corev1.ResourceList{}
		for k, v := range n.Status.Capacity {
			n.Status.Allocatable[k] = v.DeepCopy()
		}
	}
}

// SetDefaultsPersistentVolumeClaim defaults the volume mode and phase.
func SetDefaultsPersistentVolumeClaim(c *corev1.PersistentVolumeClaim) {
	if c.Spec.VolumeMode == nil {
		c.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
}

// SetDefaultsPersistentVolume defaults the reclaim policy, volume mode and
// phase.
func SetDefaultsPersistentVolume(v *corev1.PersistentVolume) {
	if v.Spec.PersistentVolumeReclaimPolicy == "" {
		v.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if v.Spec.VolumeMode == nil {
		v.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
	if v.Status.Phase == "" {
		v.Status.Phase = corev1.VolumePending
	}
}

// SetDefaultsEndpoints defaults the protocol of endpoint ports.
func SetDefaultsEndpoints(e *corev1.Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if e.Subsets[i].Ports[j].Protocol == "" {
				e.Subsets[i].Ports[j].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// SetDefaultsReplicationController defaults the selector and the labels to
// the template's labels, replicas to 1, and the template's pod spec.
func SetDefaultsReplicationController(rc *corev1.ReplicationController) {
	if t := rc.Spec.Template; t != nil {
		if len(rc.Spec.Selector) == 0 && len(t.Labels) > 0 {
			rc.Spec.Selector = maps.Clone(t.Labels)
		}
		if len(rc.Labels) == 0 && len(t.Labels) > 0 {
			rc.Labels = maps.Clone(t.Labels)
		}
		SetDefaultsPodTemplateSpec(t)
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptr[int32](1)
	}
}

// SetDefaultsLimitRange fills in a Container item's defaults: the default
// limit from max, the default request from the default limit, then from
// min.
func SetDefaultsLimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		item.Default = fillMissing(item.Default, item.Max)
		item.DefaultRequest = fillMissing(item.DefaultRequest, item.Default)
		item.DefaultRequest = fillMissing(item.DefaultRequest, item.Min)
	}
}

// fillMissing adds to dst the amounts of from it has not.
func fillMissing(dst, from corev1.ResourceList) corev1.ResourceList {
	for k, v := range from {
		if _, ok := dst[k]; ok {
			continue
		}
		if dst == nil {
			dst = corev1.ResourceList{}
		}
		dst[k] = v.DeepCopy()
	}
	return dst
}
