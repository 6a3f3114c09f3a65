package webhook_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/webhook"
	"kubecore.io/kubecore/pkg/webhook/webhooktest"
)

// objects is a rest.Getter over objects keyed "namespace/name".
type objects map[string]runtime.Object

func (o objects) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	ns, _ := apirequest.NamespaceFrom(ctx)
	if obj, ok := o[ns+"/"+name]; ok {
		return obj, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("things"), name)
}

func resolverFor(s *webhooktest.Server, ready bool) webhook.Resolver {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hook"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}},
	}
	eps := &corev1.Endpoints{ObjectMeta: svc.ObjectMeta}
	if ready {
		eps.Subsets = []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: s.Host}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: s.Port}},
		}}
	}
	return webhook.Resolver{Services: objects{"ns/hook": svc}, Endpoints: objects{"ns/hook": eps}}
}

func get(t *testing.T, c *webhook.Clients, loc webhook.Location) (string, error) {
	t.Helper()
	tr, err := c.Transport(loc)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Transport: tr}).Get(loc.URL.String())
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestServiceIsReachedAtItsEndpointWithItsName(t *testing.T) {
	s := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}), webhooktest.Options{}, "hook.ns.svc")
	r := resolverFor(s, true)
	ctx := context.Background()
	var c webhook.Clients
	defer c.Close()

	loc, err := r.Locate(ctx, webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "ns", Name: "hook", Path: "validate"}, CABundle: s.CABundle})
	if err != nil {
		t.Fatal(err)
	}
	if loc.ServerName != "hook.ns.svc" || loc.URL.Host != s.Listener.Addr().String() || loc.URL.Path != "/validate" {
		t.Fatalf("located %+v (url %s)", loc, loc.URL)
	}
	if body, err := get(t, &c, loc); err != nil || body != "/validate" {
		t.Fatalf("GET through the service: %q, %v", body, err)
	}

	// The certificate must name the Service: another name is refused.
	loc.ServerName = "other.ns.svc"
	if _, err := get(t, &c, loc); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a certificate for another name was accepted: %v", err)
	}
	// Without the caBundle the server's CA is unknown; insecure skips the check.
	loc.ServerName, loc.CABundle = "hook.ns.svc", nil
	if _, err := get(t, &c, loc); err == nil {
		t.Fatal("a server signed by an unknown CA was accepted")
	}
	loc.Insecure = true
	if _, err := get(t, &c, loc); err != nil {
		t.Fatalf("insecure: %v", err)
	}
}

func TestURLForm(t *testing.T) {
	s := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), webhooktest.Options{})
	var c webhook.Clients
	loc, err := webhook.Resolver{}.Locate(context.Background(), webhook.ClientConfig{URL: s.URL + "/x", CABundle: s.CABundle})
	if err != nil {
		t.Fatal(err)
	}
	if loc.ServerName != "127.0.0.1" {
		t.Fatalf("server name %q", loc.ServerName)
	}
	if body, err := get(t, &c, loc); err != nil || body != "ok" {
		t.Fatalf("GET: %q, %v", body, err)
	}
}

func TestBadInput(t *testing.T) {
	s := webhooktest.NewServer(t, http.NotFoundHandler(), webhooktest.Options{}, "hook.ns.svc")
	ctx := context.Background()
	cases := []struct {
		name string
		r    webhook.Resolver
		cc   webhook.ClientConfig
		want func(error) bool
		msg  string
	}{
		{"no endpoints", resolverFor(s, false), webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "ns", Name: "hook"}}, apierrors.IsServiceUnavailable, `no endpoints available for service "hook"`},
		{"no such port", resolverFor(s, true), webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "ns", Name: "hook", Port: 8443}}, apierrors.IsServiceUnavailable, `no service port "8443" found for service "hook"`},
		{"no such service", resolverFor(s, true), webhook.ClientConfig{Service: &webhook.ServiceReference{Namespace: "other", Name: "hook"}}, apierrors.IsNotFound, `not found`},
		{"nothing", resolverFor(s, true), webhook.ClientConfig{}, func(err error) bool { return err != nil }, "neither url nor service"},
		{"bad url", resolverFor(s, true), webhook.ClientConfig{URL: "https://a b/"}, func(err error) bool { return err != nil }, "bad webhook URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.r.Locate(ctx, tc.cc)
			if !tc.want(err) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %q", err, tc.msg)
			}
		})
	}
	var c webhook.Clients
	if _, err := c.Transport(webhook.Location{CABundle: []byte("not pem")}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("a bad caBundle: %v", err)
	}
}
