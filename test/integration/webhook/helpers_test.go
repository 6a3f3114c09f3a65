package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/webhook/webhooktest"
	"kubecore.io/kubecore/test/integration/framework"
)

// backend is a webhook served by the test: answer makes the response of
// each request; requests are kept.
type backend struct {
	*webhooktest.Server
	mu       sync.Mutex
	requests []*admissionv1.AdmissionRequest
	hits     atomic.Int32
}

type answerFunc func(w http.ResponseWriter, r *http.Request, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

func newBackend(t testing.TB, answer answerFunc, names ...string) *backend {
	b := &backend{}
	b.Server = webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		b.requests = append(b.requests, review.Request)
		b.mu.Unlock()
		b.hits.Add(1)
		resp := answer(w, r, review.Request)
		if resp == nil {
			return // answer wrote the response itself
		}
		resp.UID = review.Request.UID
		out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}), webhooktest.Options{}, names...)
	return b
}

func (b *backend) last() *admissionv1.AdmissionRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) == 0 {
		return nil
	}
	return b.requests[len(b.requests)-1]
}

func allow(http.ResponseWriter, *http.Request, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// client makes raw requests as the admin.
type client struct {
	t    testing.TB
	s    *framework.APIServer
	http *http.Client
}

type result struct {
	code   int
	header http.Header
	body   []byte
}

func (r result) status() metav1.Status {
	var st metav1.Status
	_ = json.Unmarshal(r.body, &st)
	return st
}

func (r result) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

func (c *client) do(method, path string, obj any) result {
	c.t.Helper()
	var body io.Reader
	if obj != nil {
		data, err := json.Marshal(obj)
		if err != nil {
			c.t.Fatal(err)
		}
		body = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.s.URL+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, header: resp.Header, body: data}
}

func (c *client) mustDo(method, path string, obj any, want int) result {
	c.t.Helper()
	r := c.do(method, path, obj)
	if r.code != want {
		c.t.Fatalf("%s %s: got %s, want %d", method, path, r, want)
	}
	return r
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"k": "v"}}
}

func ptr[T any](v T) *T { return &v }

// configMapRules are the rules of every test webhook: creates and updates
// of configmaps.
func configMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
}

// selectLabel is the objectSelector of a test's webhooks: only the
// objects labelled with the test's name are sent, so that tests running
// side by side do not see each other's webhooks.
func selectLabel(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"webhook-test": name}}
}

func urlConfig(b *backend, path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: ptr(b.URL + path), CABundle: b.CABundle}
}

// validating creates a ValidatingWebhookConfiguration of one webhook and
// removes it when the test ends.
func (c *client) validating(name string, w admissionregistrationv1.ValidatingWebhook) {
	c.t.Helper()
	if w.SideEffects == nil {
		w.SideEffects = ptr(admissionregistrationv1.SideEffectClassNone)
	}
	if w.AdmissionReviewVersions == nil {
		w.AdmissionReviewVersions = []string{"v1"}
	}
	if w.Rules == nil {
		w.Rules = configMapRules()
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.ValidatingWebhook{w},
	}
	const path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	c.mustDo(http.MethodPost, path, cfg, http.StatusCreated)
	c.t.Cleanup(func() { c.do(http.MethodDelete, path+"/"+name, nil) })
}

// mutating is validating for a MutatingWebhookConfiguration.
func (c *client) mutating(name string, w admissionregistrationv1.MutatingWebhook) {
	c.t.Helper()
	if w.SideEffects == nil {
		w.SideEffects = ptr(admissionregistrationv1.SideEffectClassNone)
	}
	if w.AdmissionReviewVersions == nil {
		w.AdmissionReviewVersions = []string{"v1"}
	}
	if w.Rules == nil {
		w.Rules = configMapRules()
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.MutatingWebhook{w},
	}
	const path = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
	c.mustDo(http.MethodPost, path, cfg, http.StatusCreated)
	c.t.Cleanup(func() { c.do(http.MethodDelete, path+"/"+name, nil) })
}

// waitCalled creates obj in ns as a dry run until b is called: the API
// server has seen the new configuration (the watch cache lags the write).
func (c *client) waitCalled(b *backend, ns string, obj any) {
	c.t.Helper()
	before := b.hits.Load()
	framework.WaitUntil(c.t, 30*time.Second, "the webhook to be called", func() bool {
		c.do(http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All", obj)
		return b.hits.Load() > before
	})
}

// waitEffect repeats a dry-run create of obj in ns until it answers want:
// for webhooks that are not called (unreachable ones).
func (c *client) waitEffect(ns string, obj any, want int) {
	c.t.Helper()
	framework.WaitUntil(c.t, 30*time.Second, fmt.Sprintf("a dry-run create to answer %d", want), func() bool {
		return c.do(http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All", obj).code == want
	})
}

// namespace creates a namespace named prefix-<random> with labels.
func (c *client) namespace(prefix string, labels map[string]string) string {
	c.t.Helper()
	r := c.mustDo(http.MethodPost, "/api/v1/namespaces", &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}, http.StatusCreated)
	var ns corev1.Namespace
	if err := json.Unmarshal(r.body, &ns); err != nil {
		c.t.Fatal(err)
	}
	return ns.Name
}

// service creates Service ns/name (port 443, no selector) and its
// Endpoints at b's address, and returns the clientConfig that reaches b
// through it at path.
func (c *client) service(ns, name string, b *backend, path string) admissionregistrationv1.WebhookClientConfig {
	c.t.Helper()
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/services", &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(b.Port)}}},
	}, http.StatusCreated)
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/endpoints", &corev1.Endpoints{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"}, ObjectMeta: metav1.ObjectMeta{Name: name},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: b.Host}}, Ports: []corev1.EndpointPort{{Port: b.Port}}}},
	}, http.StatusCreated)
	return admissionregistrationv1.WebhookClientConfig{
		Service:  &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name, Path: ptr(path)},
		CABundle: b.CABundle,
	}
}
