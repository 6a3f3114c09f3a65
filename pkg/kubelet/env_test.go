package kubelet

import (
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "alpha", "B": "beta", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"$(A)", "alpha"},
		{"x-$(A)-$(B)-y", "x-alpha-beta-y"},
		{"$(MISSING)", "$(MISSING)"},
		{"$$(A)", "$(A)"},
		{"$$", "$"},
		{"cost: $5", "cost: $5"},
		{"$(A", "$(A"},
		{"trailing $", "trailing $"},
		{"[$(EMPTY)]", "[]"},
	} {
		if got := expand(tc.in, lookup); got != tc.want {
			t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// objects is an ObjectGetter over maps.
type objects struct {
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
	services   []*corev1.Service
}

func (o objects) Services(context.Context) ([]*corev1.Service, error) { return o.services, nil }

func (o objects) ConfigMap(_ context.Context, _, name string) (*corev1.ConfigMap, error) {
	if cm, ok := o.configMaps[name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (o objects) Secret(_ context.Context, _, name string) (*corev1.Secret, error) {
	if s, ok := o.secrets[name]; ok {
		return s, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func TestContainerEnv(t *testing.T) {
	objs := objects{
		configMaps: map[string]*corev1.ConfigMap{"cm": {Data: map[string]string{"k": "cmv", "other": "o"}}},
		secrets:    map[string]*corev1.Secret{"sec": {Data: map[string][]byte{"pw": []byte("s3cret")}}},
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "n1", ServiceAccountName: "sa"},
	}
	ips := podIPs{hostIP: "10.0.0.1", podIP: "10.0.0.2"}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	optional := true
	cmRef := func(name, key string, opt bool) *corev1.EnvVarSource {
		r := &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
		if opt {
			r.Optional = &optional
		}
		return &corev1.EnvVarSource{ConfigMapKeyRef: r}
	}
	field := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
	}
	for _, tc := range []struct {
		name    string
		c       corev1.Container
		want    string // "K=V;K=V" in order
		wantErr string
	}{
		{name: "values expand earlier ones", c: corev1.Container{Env: []corev1.EnvVar{
			{Name: "A", Value: "1"}, {Name: "B", Value: "$(A)+$(C)"}, {Name: "C", Value: "3"}}},
			want: "A=1;B=1+$(C);C=3"},
		{name: "downward API", c: corev1.Container{Env: []corev1.EnvVar{
			{Name: "N", ValueFrom: field("metadata.name")}, {Name: "NS", ValueFrom: field("metadata.namespace")},
			{Name: "U", ValueFrom: field("metadata.uid")}, {Name: "L", ValueFrom: field("metadata.labels['app']")},
			{Name: "NODE", ValueFrom: field("spec.nodeName")}, {Name: "SA", ValueFrom: field("spec.serviceAccountName")},
			{Name: "IP", ValueFrom: field("status.podIP")}, {Name: "HOST", ValueFrom: field("status.hostIP")}}},
			want: "N=p;NS=ns;U=uid-1;L=web;NODE=n1;SA=sa;IP=10.0.0.2;HOST=10.0.0.1"},
		{name: "config map and secret keys", c: corev1.Container{Env: []corev1.EnvVar{
			{Name: "CM", ValueFrom: cmRef("cm", "k", false)},
			{Name: "PW", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Key: "pw"}}}}},
			want: "CM=cmv;PW=s3cret"},
		{name: "optional missing config map is left out", c: corev1.Container{Env: []corev1.EnvVar{
			{Name: "X", ValueFrom: cmRef("nope", "k", true)}, {Name: "Y", ValueFrom: cmRef("cm", "nokey", true)}, {Name: "Z", Value: "z"}}},
			want: "Z=z"},
		{name: "missing config map fails", c: corev1.Container{Env: []corev1.EnvVar{{Name: "X", ValueFrom: cmRef("nope", "k", false)}}},
			wantErr: `configmap "nope" not found`},
		{name: "missing key fails", c: corev1.Container{Env: []corev1.EnvVar{{Name: "X", ValueFrom: cmRef("cm", "nokey", false)}}},
			wantErr: "couldn't find key nokey"},
		{name: "envFrom with prefix, env wins", c: corev1.Container{
			EnvFrom: []corev1.EnvFromSource{{Prefix: "P_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
			Env:     []corev1.EnvVar{{Name: "P_k", Value: "override"}}},
			want: "P_k=override;P_other=o"},
		{name: "resource limits default to allocatable", c: corev1.Container{
			Name:      "main",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
			Env: []corev1.EnvVar{
				{Name: "REQ", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.cpu", Divisor: resource.MustParse("1m")}}},
				{Name: "LIM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}}}},
			want: "REQ=250;LIM=8192"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, err := containerEnv(t.Context(), objs, pod, &tc.c, ips, alloc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("containerEnv error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, kv := range env {
				parts = append(parts, kv.Key+"="+kv.Value)
			}
			// envFrom keys come from a map: compare those as a set.
			got := strings.Join(parts, ";")
			if tc.name == "envFrom with prefix, env wins" {
				if len(parts) != 2 || !strings.Contains(got, "P_k=override") || !strings.Contains(got, "P_other=o") {
					t.Errorf("env = %s, want %s (any order)", got, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("env = %s, want %s", got, tc.want)
			}
		})
	}
}

func service(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

func TestServiceEnv(t *testing.T) {
	services := []*corev1.Service{
		service("default", "kubernetes", "10.96.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}),
		service("default", "other", "10.96.0.9", corev1.ServicePort{Port: 80}),
		service("ns", "web-front", "10.96.0.20", corev1.ServicePort{Name: "http-alt", Port: 8080}, corev1.ServicePort{Port: 53, Protocol: corev1.ProtocolUDP}),
		service("ns", "headless", corev1.ClusterIPNone, corev1.ServicePort{Port: 80}),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "external"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	env := serviceEnv(pod, services)
	want := map[string]string{
		"KUBERNETES_SERVICE_HOST":       "10.96.0.1",
		"KUBERNETES_SERVICE_PORT":       "443",
		"KUBERNETES_SERVICE_PORT_HTTPS": "443",
		"KUBERNETES_PORT":               "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP":       "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO": "tcp",
		"KUBERNETES_PORT_443_TCP_PORT":  "443",
		"KUBERNETES_PORT_443_TCP_ADDR":  "10.96.0.1",

		"WEB_FRONT_SERVICE_HOST":          "10.96.0.20",
		"WEB_FRONT_SERVICE_PORT":          "8080",
		"WEB_FRONT_SERVICE_PORT_HTTP_ALT": "8080",
		"WEB_FRONT_PORT":                  "tcp://10.96.0.20:8080",
		"WEB_FRONT_PORT_8080_TCP":         "tcp://10.96.0.20:8080",
		"WEB_FRONT_PORT_8080_TCP_PROTO":   "tcp",
		"WEB_FRONT_PORT_8080_TCP_PORT":    "8080",
		"WEB_FRONT_PORT_8080_TCP_ADDR":    "10.96.0.20",
		"WEB_FRONT_PORT_53_UDP":           "udp://10.96.0.20:53",
		"WEB_FRONT_PORT_53_UDP_PROTO":     "udp",
		"WEB_FRONT_PORT_53_UDP_PORT":      "53",
		"WEB_FRONT_PORT_53_UDP_ADDR":      "10.96.0.20",
	}
	if !maps.Equal(env, want) {
		t.Errorf("serviceEnv =\n%v\nwant\n%v", env, want)
	}

	// enableServiceLinks: false keeps only the master Service's.
	no := false
	pod.Spec.EnableServiceLinks = &no
	env = serviceEnv(pod, services)
	if len(env) != 8 || env["KUBERNETES_SERVICE_HOST"] != "10.96.0.1" || env["WEB_FRONT_SERVICE_HOST"] != "" {
		t.Errorf("without service links: %v", env)
	}
	// A Service named kubernetes in the pod's namespace wins.
	pod.Spec.EnableServiceLinks = nil
	env = serviceEnv(pod, append(services, service("ns", "kubernetes", "10.96.0.77", corev1.ServicePort{Port: 1})))
	if env["KUBERNETES_SERVICE_HOST"] != "10.96.0.77" {
		t.Errorf("the namespace's own kubernetes Service: %v", env["KUBERNETES_SERVICE_HOST"])
	}
}

func TestContainerEnvServices(t *testing.T) {
	objs := objects{services: []*corev1.Service{
		service("default", "kubernetes", "10.96.0.1", corev1.ServicePort{Name: "https", Port: 443}),
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	c := &corev1.Container{Env: []corev1.EnvVar{
		{Name: "API", Value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"},
		{Name: "KUBERNETES_SERVICE_PORT", Value: "6443"},
	}}
	env, err := containerEnv(t.Context(), objs, pod, c, podIPs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var order []string
	for _, kv := range env {
		got[kv.Key] = kv.Value
		order = append(order, kv.Key)
	}
	// The container's own variables come first and win; a reference to a
	// Service variable expands; the Services' other variables follow.
	if order[0] != "API" || order[1] != "KUBERNETES_SERVICE_PORT" || len(order) != 9 {
		t.Errorf("order = %v", order)
	}
	if got["API"] != "https://10.96.0.1:443" || got["KUBERNETES_SERVICE_PORT"] != "6443" || got["KUBERNETES_PORT_443_TCP_ADDR"] != "10.96.0.1" {
		t.Errorf("env = %v", got)
	}
}
