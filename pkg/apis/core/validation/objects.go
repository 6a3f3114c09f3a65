package validation

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// MaxSecretSize is the most data a secret or configmap may hold.
const MaxSecretSize = 1 * 1024 * 1024

const immutableWhenSet = "field is immutable when `immutable` is set"

// ValidateNamespace checks a namespace: a DNS label name.
func ValidateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := metaOnly(&ns.ObjectMeta, false, apivalidation.ValidateNamespaceName)
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), field.NewPath("spec", "finalizers").Index(i))...)
	}
	return errs
}

// ValidateNamespaceUpdate checks an update of a namespace.
func ValidateNamespaceUpdate(ns, old *corev1.Namespace) field.ErrorList {
	return apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
}

// ValidateNamespaceFinalizeUpdate checks a /finalize update.
func ValidateNamespaceFinalizeUpdate(ns, old *corev1.Namespace) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), field.NewPath("spec", "finalizers").Index(i))...)
	}
	return errs
}

// ValidateNamespaceStatusUpdate checks a /status update: a terminating
// namespace stays Terminating.
func ValidateNamespaceStatusUpdate(ns, old *corev1.Namespace) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("status", "phase")
	if old.DeletionTimestamp.IsZero() {
		if ns.Status.Phase != corev1.NamespaceActive {
			errs = append(errs, field.Invalid(p, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if ns.Status.Phase != corev1.NamespaceTerminating {
		errs = append(errs, field.Invalid(p, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// ValidateNode checks a node.
func ValidateNode(n *corev1.Node) field.ErrorList {
	errs := metaOnly(&n.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	for i, cidr := range n.Spec.PodCIDRs {
		errs = append(errs, validation.IsValidCIDR(field.NewPath("spec", "podCIDRs").Index(i), cidr)...)
	}
	for i, t := range n.Spec.Taints {
		p := field.NewPath("spec", "taints").Index(i)
		errs = append(errs, apivalidation.ValidateLabelName(t.Key, p.Child("key"))...)
		errs = append(errs, validateEnum(t.Effect, p.Child("effect"), []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})...)
	}
	return errs
}

// ValidateNodeUpdate checks a node update: a pod CIDR, once set, stays.
func ValidateNodeUpdate(n, old *corev1.Node) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateNode(n)...)
	if old.Spec.PodCIDR != "" && n.Spec.PodCIDR != old.Spec.PodCIDR {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "podCIDR"), "node updates may not change podCIDR except from \"\" to valid"))
	}
	return errs
}

// ValidateConfigMap checks a configmap's keys and size.
func ValidateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := metaOnly(&cm.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	size := 0
	for k, v := range cm.Data {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, msg))
		}
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(v)
	}
	for k, v := range cm.BinaryData {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(k), k, msg))
		}
		size += len(v)
	}
	if size > MaxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", MaxSecretSize))
	}
	return errs
}

// ValidateConfigMapUpdate checks an update; an immutable configmap keeps
// its data.
func ValidateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if isTrue(old.Immutable) {
		if !isTrue(cm.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		if specDiff(cm.Data, old.Data) != "" || len(cm.Data) != len(old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
		}
		if specDiff(cm.BinaryData, old.BinaryData) != "" || len(cm.BinaryData) != len(old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableWhenSet))
		}
	}
	return append(errs, ValidateConfigMap(cm)...)
}

func isTrue(b *bool) bool { return b != nil && *b }

// ValidateSecret checks a secret's keys, size and the keys its type needs.
func ValidateSecret(s *corev1.Secret) field.ErrorList {
	errs := metaOnly(&s.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	dataPath := field.NewPath("data")
	size := 0
	for k, v := range s.Data {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, msg))
		}
		size += len(v)
	}
	if size > MaxSecretSize {
		errs = append(errs, field.TooLong(dataPath, "", MaxSecretSize))
	}
	require := func(key string) {
		if _, ok := s.Data[key]; !ok {
			errs = append(errs, field.Required(dataPath.Key(key), ""))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		require(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJSON:
		require(corev1.DockerConfigJSONKey)
	case corev1.SecretTypeBasicAuth:
		_, u := s.Data[corev1.BasicAuthUsernameKey]
		_, p := s.Data[corev1.BasicAuthPasswordKey]
		if !u && !p {
			errs = append(errs, field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""))
			errs = append(errs, field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		require(corev1.SSHAuthPrivateKey)
	case corev1.SecretTypeTLS:
		require(corev1.TLSCertKey)
		require(corev1.TLSPrivateKeyKey)
	default:
		for _, msg := range validation.IsQualifiedName(string(s.Type)) {
			errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, msg))
		}
	}
	return errs
}

// ValidateSecretUpdate checks an update: the type never changes and an
// immutable secret keeps its data.
func ValidateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))...)
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		if specDiff(s.Data, old.Data) != "" || len(s.Data) != len(old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
		}
	}
	return append(errs, ValidateSecret(s)...)
}

// ValidateServiceAccount checks a service account.
func ValidateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return metaOnly(&sa.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
}

// ValidateEvent checks an event: it lives in its object's namespace.
func ValidateEvent(e *corev1.Event) field.ErrorList {
	errs := metaOnly(&e.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	if ns := e.InvolvedObject.Namespace; ns != "" && ns != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), ns, "does not match event.namespace"))
	}
	if e.Type != "" && e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.NotSupported(field.NewPath("type"), e.Type, []string{corev1.EventTypeNormal, corev1.EventTypeWarning}))
	}
	return errs
}

// ValidateEndpoints checks the addresses and ports of endpoints.
func ValidateEndpoints(e *corev1.Endpoints) field.ErrorList {
	errs := metaOnly(&e.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	for i, ss := range e.Subsets {
		sp := field.NewPath("subsets").Index(i)
		for j, a := range ss.Addresses {
			errs = append(errs, validation.IsValidIP(sp.Child("addresses").Index(j).Child("ip"), a.IP)...)
		}
		for j, a := range ss.NotReadyAddresses {
			errs = append(errs, validation.IsValidIP(sp.Child("notReadyAddresses").Index(j).Child("ip"), a.IP)...)
		}
		for j, p := range ss.Ports {
			pp := sp.Child("ports").Index(j)
			for _, msg := range validation.IsValidPortNum(int(p.Port)) {
				errs = append(errs, field.Invalid(pp.Child("port"), p.Port, msg))
			}
			errs = append(errs, validateProtocol(p.Protocol, pp.Child("protocol"))...)
		}
	}
	return errs
}

// ValidatePersistentVolumeClaim checks a claim: access modes and a storage
// request.
func ValidatePersistentVolumeClaim(c *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := metaOnly(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	return append(errs, ValidatePersistentVolumeClaimSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidatePersistentVolumeClaimSpec checks a claim's spec (also in a
// StatefulSet's volumeClaimTemplates).
func ValidatePersistentVolumeClaimSpec(s *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	modes := []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}
	for i, m := range s.AccessModes {
		errs = append(errs, validateEnum(m, p.Child("accessModes").Index(i), modes)...)
	}
	if _, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok && s.DataSource == nil && s.DataSourceRef == nil {
		errs = append(errs, field.Required(p.Child("resources").Key(string(corev1.ResourceStorage)), ""))
	}
	return errs
}

// ValidatePersistentVolumeClaimUpdate checks an update: the spec is fixed
// but for a larger storage request and a volume name set once.
func ValidatePersistentVolumeClaimUpdate(c, old *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePersistentVolumeClaim(c)...)
	cmp := c.Spec.DeepCopy()
	cmp.Resources = old.Spec.Resources
	if old.Spec.VolumeName == "" {
		cmp.VolumeName = ""
	}
	if specDiff(cmp, &old.Spec) != "" {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"))
	}
	return errs
}

// ValidatePersistentVolume checks a volume: capacity, access modes and
// exactly one source.
func ValidatePersistentVolume(v *corev1.PersistentVolume) field.ErrorList {
	errs := metaOnly(&v.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	sp := field.NewPath("spec")
	if len(v.Spec.AccessModes) == 0 {
		errs = append(errs, field.Required(sp.Child("accessModes"), ""))
	}
	if len(v.Spec.Capacity) == 0 {
		errs = append(errs, field.Required(sp.Child("capacity"), ""))
	}
	n := 0
	src := v.Spec.PersistentVolumeSource
	for _, set := range []bool{src.HostPath != nil, src.NFS != nil, src.CSI != nil, src.Local != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(sp, "must specify a volume type"))
	case n > 1:
		errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type"))
	}
	return errs
}

// ValidateService checks a service: type, ports, selector and addresses.
func ValidateService(s *corev1.Service) field.ErrorList {
	errs := metaOnly(&s.ObjectMeta, true, apivalidation.NameIsDNS1035Label)
	sp := field.NewPath("spec")
	errs = append(errs, validateEnum(s.Spec.Type, sp.Child("type"), []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort})...)
	errs = append(errs, validateEnum(s.Spec.SessionAffinity, sp.Child("sessionAffinity"), []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone})...)
	headless := s.Spec.ClusterIP == corev1.ClusterIPNone
	if s.Spec.Type == corev1.ServiceTypeExternalName {
		if s.Spec.ExternalName == "" {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(s.Spec.ExternalName) {
				errs = append(errs, field.Invalid(sp.Child("externalName"), s.Spec.ExternalName, msg))
			}
		}
		// An ExternalName service is a DNS alias: no address of its own.
		if s.Spec.ClusterIP != "" || len(s.Spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(s.Spec.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if s.Spec.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
	} else if len(s.Spec.Ports) == 0 && !headless {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	if headless && s.Spec.Type != corev1.ServiceTypeClusterIP && s.Spec.Type != "" {
		errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(0), s.Spec.ClusterIP, fmt.Sprintf("may not be set to 'None' for %s services", s.Spec.Type)))
	}
	if ip := s.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		errs = append(errs, validation.IsValidIP(sp.Child("clusterIPs").Index(0), ip)...)
	}
	names := map[string]bool{}
	ports := map[string]bool{}
	for i, port := range s.Spec.Ports {
		pp := sp.Child("ports").Index(i)
		if len(s.Spec.Ports) > 1 && port.Name == "" {
			errs = append(errs, field.Required(pp.Child("name"), ""))
		} else if port.Name != "" {
			for _, msg := range validation.IsDNS1123Label(port.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
			}
			if names[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		for _, msg := range validation.IsValidPortNum(int(port.Port)) {
			errs = append(errs, field.Invalid(pp.Child("port"), port.Port, msg))
		}
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		key := fmt.Sprintf("%d/%s", port.Port, port.Protocol)
		if ports[key] {
			errs = append(errs, field.Duplicate(pp, corev1.ServicePort{Port: port.Port, Protocol: port.Protocol}))
		}
		ports[key] = true
		switch port.TargetPort.Type {
		case intstr.Int:
			if port.TargetPort.IntVal != 0 {
				for _, msg := range validation.IsValidPortNum(int(port.TargetPort.IntVal)) {
					errs = append(errs, field.Invalid(pp.Child("targetPort"), port.TargetPort.IntVal, msg))
				}
			}
		case intstr.String:
			for _, msg := range validation.IsValidPortName(port.TargetPort.StrVal) {
				errs = append(errs, field.Invalid(pp.Child("targetPort"), port.TargetPort.StrVal, msg))
			}
		}
		if port.NodePort != 0 {
			if s.Spec.Type == corev1.ServiceTypeClusterIP {
				errs = append(errs, field.Forbidden(pp.Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			} else {
				for _, msg := range validation.IsValidPortNum(int(port.NodePort)) {
					errs = append(errs, field.Invalid(pp.Child("nodePort"), port.NodePort, msg))
				}
			}
		}
	}
	errs = append(errs, apivalidation.ValidateLabels(s.Spec.Selector, sp.Child("selector"))...)
	for i, ip := range s.Spec.ExternalIPs {
		errs = append(errs, validation.IsValidIP(sp.Child("externalIPs").Index(i), ip)...)
	}
	return errs
}

// ValidateServiceUpdate checks an update: the cluster IP, once set, stays
// unless the service becomes ExternalName.
func ValidateServiceUpdate(s, old *corev1.Service) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if old.Spec.ClusterIP != "" && s.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.ClusterIP != old.Spec.ClusterIP {
		errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), s.Spec.ClusterIP, "may not change once set"))
	}
	return append(errs, ValidateService(s)...)
}
