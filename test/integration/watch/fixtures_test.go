package watch

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
)

// obj is a JSON object.
type obj = map[string]any

// podSpec is a pod template's spec that every validation accepts.
func podSpec() obj {
	return obj{
		"automountServiceAccountToken": false,
		"restartPolicy":                "Always",
		"containers":                   []any{obj{"name": "c", "image": "busybox", "command": []any{"sleep", "3600"}}},
	}
}

func template(labels obj, restartPolicy string) obj {
	spec := podSpec()
	spec["restartPolicy"] = restartPolicy
	return obj{"metadata": obj{"labels": labels}, "spec": spec}
}

// fixtures returns, by "group/resource", the body of one object of each
// built-in resource that can be created, without apiVersion, kind and
// metadata.name (added by the caller). ns is the namespace of namespaced
// objects.
func fixtures(t *testing.T, ns string) map[string]obj {
	t.Helper()
	sel := obj{"app": "watch-test"}
	return map[string]obj{
		"/configmaps":        {"data": obj{"k": "v"}},
		"/secrets":           {"stringData": obj{"k": "v"}},
		"/serviceaccounts":   {},
		"/podtemplates":      {"template": template(sel, "Always")},
		"/pods":              {"spec": podSpec()},
		"/services":          {"spec": obj{"ports": []any{obj{"port": 80}}, "selector": sel}},
		"/endpoints":         {"subsets": []any{obj{"addresses": []any{obj{"ip": "10.1.2.3"}}, "ports": []any{obj{"port": 80}}}}},
		"/events":            {"involvedObject": obj{"kind": "Pod", "namespace": ns, "name": "p", "apiVersion": "v1"}, "reason": "Test", "message": "m", "type": "Normal"},
		"/namespaces":        {},
		"/nodes":             {},
		"/persistentvolumes": {"spec": obj{"capacity": obj{"storage": "1Gi"}, "accessModes": []any{"ReadWriteOnce"}, "hostPath": obj{"path": "/tmp/watch-test"}}},
		"/persistentvolumeclaims": {
			"spec": obj{"accessModes": []any{"ReadWriteOnce"}, "resources": obj{"requests": obj{"storage": "1Gi"}}},
		},
		"/limitranges":            {"spec": obj{"limits": []any{obj{"type": "PersistentVolumeClaim", "max": obj{"storage": "100Gi"}}}}},
		"/replicationcontrollers": {"spec": obj{"replicas": 0, "selector": sel, "template": template(sel, "Always")}},
		// A quota on a resource nothing here creates: it charges nothing.
		"/resourcequotas": {"spec": obj{"hard": obj{"count/nothings.example.com": "1"}}},
		"admissionregistration.k8s.io/validatingwebhookconfigurations": {"webhooks": []any{obj{
			"name": "w.example.com", "clientConfig": obj{"url": "https://example.com/x"}, "admissionReviewVersions": []any{"v1"},
			"sideEffects": "None", "failurePolicy": "Ignore", "rules": []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"nothings"}}},
		}}},
		"admissionregistration.k8s.io/mutatingwebhookconfigurations": {"webhooks": []any{obj{
			"name": "w.example.com", "clientConfig": obj{"url": "https://example.com/x"}, "admissionReviewVersions": []any{"v1"},
			"sideEffects": "None", "failurePolicy": "Ignore", "rules": []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"nothings"}}},
		}}},
		"admissionregistration.k8s.io/validatingadmissionpolicies": {"spec": obj{
			"matchConstraints": obj{"resourceRules": []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"nothings"}}}}, "validations": []any{obj{"expression": "true"}},
		}},
		"admissionregistration.k8s.io/validatingadmissionpolicybindings": {"spec": obj{"policyName": "watch-test", "validationActions": []any{"Deny"}}},
		"admissionregistration.k8s.io/mutatingadmissionpolicies": {"spec": obj{
			"matchConstraints": obj{"resourceRules": []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"nothings"}}}}, "reinvocationPolicy": "Never",
			"mutations": []any{obj{"patchType": "ApplyConfiguration", "applyConfiguration": obj{"expression": "Object{}"}}},
		}},
		"admissionregistration.k8s.io/mutatingadmissionpolicybindings": {"spec": obj{"policyName": "watch-test"}},
		"apiregistration.k8s.io/apiservices": {
			"metadata": obj{"name": "v1.watch-test.example.com"},
			"spec":     obj{"group": "watch-test.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 15, "service": obj{"namespace": ns, "name": "nothing", "port": 443}, "insecureSkipTLSVerify": true},
		},
		"flowcontrol.apiserver.k8s.io/flowschemas": {"spec": obj{
			"priorityLevelConfiguration": obj{"name": "global-default"}, "matchingPrecedence": 9000,
			"rules": []any{obj{"subjects": []any{obj{"kind": "User", "user": obj{"name": "watch-test-nobody"}}},
				"resourceRules": []any{obj{"verbs": []any{"get"}, "apiGroups": []any{"example.com"}, "resources": []any{"nothings"}, "namespaces": []any{"*"}}}}},
		}},
		"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": {"spec": obj{"type": "Limited", "limited": obj{"nominalConcurrencyShares": 1, "limitResponse": obj{"type": "Reject"}}}},
		"apps/controllerrevisions":                                 {"revision": 1, "data": obj{"x": "y"}},
		"apps/daemonsets":                                          {"spec": obj{"selector": obj{"matchLabels": sel}, "template": template(sel, "Always")}},
		"apps/deployments":                                         {"spec": obj{"replicas": 0, "selector": obj{"matchLabels": sel}, "template": template(sel, "Always")}},
		"apps/replicasets":                                         {"spec": obj{"replicas": 0, "selector": obj{"matchLabels": sel}, "template": template(sel, "Always")}},
		"apps/statefulsets":                                        {"spec": obj{"replicas": 0, "serviceName": "s", "selector": obj{"matchLabels": sel}, "template": template(sel, "Always")}},
		"batch/jobs":                                               {"spec": obj{"suspend": true, "template": template(obj{}, "Never")}},
		"batch/cronjobs":                                           {"spec": obj{"schedule": "0 0 1 1 *", "suspend": true, "jobTemplate": obj{"spec": obj{"template": template(obj{}, "Never")}}}},
		"certificates.k8s.io/certificatesigningrequests": {"spec": obj{
			"request": base64.StdEncoding.EncodeToString(csr(t)), "signerName": "example.com/watch-test", "usages": []any{"client auth"},
		}},
		"coordination.k8s.io/leases":      {"spec": obj{"holderIdentity": "me", "leaseDurationSeconds": 15}},
		"discovery.k8s.io/endpointslices": {"addressType": "IPv4", "endpoints": []any{obj{"addresses": []any{"10.1.2.3"}}}},
		"policy/poddisruptionbudgets":     {"spec": obj{"minAvailable": 1, "selector": obj{"matchLabels": sel}}},
		"events.k8s.io/events": {
			"metadata": obj{"name": "watch-test-event-v1"}, "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/watch-test",
			"reportingInstance": "watch-test-1", "action": "Test", "reason": "Test", "type": "Normal", "regarding": obj{"kind": "Pod", "namespace": ns, "name": "p"},
		},
		"networking.k8s.io/ingresses":       {"spec": obj{"defaultBackend": obj{"service": obj{"name": "web", "port": obj{"number": 80}}}}},
		"networking.k8s.io/ingressclasses":  {"spec": obj{"controller": "example.com/watch-test"}},
		"networking.k8s.io/networkpolicies": {"spec": obj{"podSelector": obj{}}},
		"networking.k8s.io/ipaddresses": {
			"metadata": obj{"name": "192.0.2.77"}, "spec": obj{"parentRef": obj{"resource": "gateways", "group": "example.com", "namespace": ns, "name": "g"}},
		},
		"networking.k8s.io/servicecidrs":         {"spec": obj{"cidrs": []any{"192.0.2.0/24"}}},
		"node.k8s.io/runtimeclasses":             {"handler": "watchtest"},
		"rbac.authorization.k8s.io/roles":        {"rules": []any{obj{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}},
		"autoscaling/horizontalpodautoscalers":   {"spec": obj{"scaleTargetRef": obj{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}, "maxReplicas": 3}},
		"resource.k8s.io/deviceclasses":          {"spec": obj{"selectors": []any{obj{"cel": obj{"expression": `device.driver == "gpu.example.com"`}}}}},
		"resource.k8s.io/resourceclaims":         {"spec": obj{"devices": obj{"requests": []any{obj{"name": "gpu", "exactly": obj{"deviceClassName": "gpu"}}}}}},
		"resource.k8s.io/resourceclaimtemplates": {"spec": obj{"spec": obj{"devices": obj{"requests": []any{obj{"name": "gpu", "exactly": obj{"deviceClassName": "gpu"}}}}}}},
		"resource.k8s.io/resourceslices": {"spec": obj{"driver": "gpu.example.com", "nodeName": "n1", "pool": obj{"name": "n1", "generation": 1, "resourceSliceCount": 1},
			"devices": []any{obj{"name": "gpu-0", "attributes": obj{"model": obj{"string": "x"}}, "capacity": obj{"memory": obj{"value": "16Gi"}}}}}},
		"storage.k8s.io/storageclasses":          {"provisioner": "example.com/watch-test"},
		"storage.k8s.io/csidrivers":              {"spec": obj{}},
		"storage.k8s.io/csinodes":                {"spec": obj{"drivers": []any{obj{"name": "csi.example.com", "nodeID": "n1", "topologyKeys": []any{"zone"}}}}},
		"storage.k8s.io/csistoragecapacities":    {"storageClassName": "local-path", "capacity": "1Gi"},
		"storage.k8s.io/volumeattachments":       {"spec": obj{"attacher": "csi.example.com", "nodeName": "n1", "source": obj{"persistentVolumeName": "pv1"}}},
		"storage.k8s.io/volumeattributesclasses": {"driverName": "csi.example.com", "parameters": obj{"iops": "100"}},
		"rbac.authorization.k8s.io/clusterroles": {
			"rules": []any{obj{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}},
		},
		"rbac.authorization.k8s.io/rolebindings": {
			"roleRef":  obj{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
			"subjects": []any{obj{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "watch-test"}},
		},
		"rbac.authorization.k8s.io/clusterrolebindings": {
			"roleRef":  obj{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
			"subjects": []any{obj{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "watch-test"}},
		},
		"scheduling.k8s.io/priorityclasses":              {"value": 1000},
		"apiextensions.k8s.io/customresourcedefinitions": crd("gadgets", "Gadget", "watch-fixture.kubecore.test", "v1"),
		crdGroup + "/" + crdPlural:                       {"spec": obj{"size": 1}},
	}
}

// csr is a PEM certificate signing request of a fresh key.
func csr(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "watch-test"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// The custom resource every watch test serves, in two versions.
const (
	crdGroup  = "watch.kubecore.test"
	crdPlural = "widgets"
	crdKind   = "Widget"
)

// crd is a namespaced definition served in versions (the first one
// stored) with a status subresource, as sample-controller's Foo.
func crd(plural, kind, group string, versions ...string) obj {
	schema := obj{"openAPIV3Schema": obj{
		"type": "object",
		"properties": obj{
			"spec":   obj{"type": "object", "properties": obj{"size": obj{"type": "integer"}}},
			"status": obj{"type": "object", "properties": obj{"seen": obj{"type": "integer"}}},
		},
	}}
	var vs []any
	for i, v := range versions {
		vs = append(vs, obj{
			"name": v, "served": true, "storage": i == 0, "schema": schema,
			"subresources": obj{"status": obj{}},
		})
	}
	return obj{
		"metadata": obj{"name": plural + "." + group},
		"spec": obj{
			"group": group, "scope": "Namespaced", "versions": vs,
			"names": obj{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
		},
	}
}
