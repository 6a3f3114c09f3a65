package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/webhook"
	"kubecore.io/kubecore/pkg/webhook/webhooktest"
)

type fakeSource struct {
	mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	lists      atomic.Int32
}

func (f *fakeSource) MutatingWebhookConfigurations(context.Context) ([]*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	f.lists.Add(1)
	return append([]*admissionregistrationv1.MutatingWebhookConfiguration(nil), f.mutating...), nil
}

func (f *fakeSource) ValidatingWebhookConfigurations(context.Context) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	return append([]*admissionregistrationv1.ValidatingWebhookConfiguration(nil), f.validating...), nil
}

type noNamespaces struct{}

func (noNamespaces) Namespace(context.Context, string) (*corev1.Namespace, error) {
	return &corev1.Namespace{}, nil
}

type urlLocator struct{}

func (urlLocator) Locate(ctx context.Context, cc webhook.ClientConfig) (webhook.Location, error) {
	return webhook.Resolver{}.Locate(ctx, cc)
}

func ptr[T any](v T) *T { return &v }

var allPods = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
}}

// server answers each review with respond.
func server(t *testing.T, calls *atomic.Int32, respond func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *webhooktest.Server {
	return webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := respond(review.Request)
		resp.UID = review.Request.UID
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp})
	}), webhooktest.Options{})
}

func mutatingHook(name string, s *webhooktest.Server, reinvoke bool) admissionregistrationv1.MutatingWebhook {
	h := admissionregistrationv1.MutatingWebhook{Name: name, Rules: allPods, SideEffects: ptr(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr(s.URL), CABundle: s.CABundle}}
	if reinvoke {
		h.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
	}
	return h
}

func podAttributes(dryRun bool) *rest.Attributes {
	return &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Namespace: "ns", Name: "p", DryRun: dryRun,
		Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}}
}

func newPlugins(t *testing.T, src Source) Plugins {
	t.Helper()
	// The defaults of the type are applied again after a patch.
	def := func(obj runtime.Object) {
		if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.RestartPolicy == "" {
			pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
		}
	}
	p, err := New(Config{Source: src, Namespaces: noNamespaces{}, Locator: urlLocator{}, Clients: &webhook.Clients{}, Default: def})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReinvocationAndPatchInPlace(t *testing.T) {
	var firstCalls, secondCalls atomic.Int32
	// The first webhook sets a label from the annotation the second adds:
	// it needs reinvoking to see it.
	first := server(t, &firstCalls, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var pod corev1.Pod
		_ = json.Unmarshal(req.Object.Raw, &pod)
		if v, ok := pod.Annotations["second"]; ok {
			return &admissionv1.AdmissionResponse{Allowed: true, PatchType: ptr(admissionv1.PatchTypeJSONPatch),
				Patch: []byte(`[{"op":"add","path":"/metadata/labels","value":{"seen":"` + v + `"}}]`)}
		}
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	second := server(t, &secondCalls, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, PatchType: ptr(admissionv1.PatchTypeJSONPatch),
			Patch: []byte(`[{"op":"add","path":"/metadata/annotations","value":{"second":"yes"}}]`)}
	})
	src := &fakeSource{mutating: []*admissionregistrationv1.MutatingWebhookConfiguration{
		{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "1"}, Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("second", second, false)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}, Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("first", first, true)}},
	}}
	p := newPlugins(t, src)
	a := podAttributes(false)
	pod := a.Object.(*corev1.Pod)
	if err := p.Mutating.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if a.Object != pod {
		t.Error("the object was replaced, not patched in place")
	}
	if pod.Labels["seen"] != "yes" || pod.Annotations["second"] != "yes" || pod.Kind != "" || pod.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("pod after admission: %+v", pod.ObjectMeta)
	}
	if firstCalls.Load() != 2 || secondCalls.Load() != 1 {
		t.Errorf("calls: first %d (want 2, reinvoked), second %d", firstCalls.Load(), secondCalls.Load())
	}
	// The hooks are compiled once per version of the configurations.
	c1, _ := p.Mutating.d.compiler.mutatingHooks(context.Background(), src)
	c2, _ := p.Mutating.d.compiler.mutatingHooks(context.Background(), src)
	if &c1[0] != &c2[0] {
		t.Error("unchanged configurations were compiled again")
	}
	src.mutating[0] = src.mutating[0].DeepCopy()
	src.mutating[0].ResourceVersion = "2"
	if c3, _ := p.Mutating.d.compiler.mutatingHooks(context.Background(), src); &c3[0] == &c1[0] {
		t.Error("a changed configuration was not compiled again")
	}
}

func TestDryRunAndFailures(t *testing.T) {
	var calls atomic.Int32
	s := server(t, &calls, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, AuditAnnotations: map[string]string{"decision": "fine"}, Warnings: []string{"mind\nthe gap"}}
	})
	hook := admissionregistrationv1.ValidatingWebhook{Name: "v.example.com", Rules: allPods, AdmissionReviewVersions: []string{"v1"},
		SideEffects: ptr(admissionregistrationv1.SideEffectClassSome), ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr(s.URL), CABundle: s.CABundle}}
	src := &fakeSource{validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "v", ResourceVersion: "1"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{hook}}}}
	p := newPlugins(t, src)
	err := p.Validating.Validate(context.Background(), podAttributes(true))
	if !apierrors.IsBadRequest(err) || err.Error() != `admission webhook "v.example.com" does not support dry run` || calls.Load() != 0 {
		t.Errorf("dry run with side effects: %v (calls %d)", err, calls.Load())
	}
	annotations := map[string]string{}
	var warnings []string
	ctx := apirequest.WithAuditAnnotator(context.Background(), func(k, v string) { annotations[k] = v })
	ctx = apirequest.WithWarningRecorder(ctx, func(w string) { warnings = append(warnings, w) })
	if err := p.Validating.Validate(ctx, podAttributes(false)); err != nil || calls.Load() != 1 {
		t.Errorf("a write: %v (calls %d)", err, calls.Load())
	}
	if annotations["v.example.com/decision"] != "fine" || len(warnings) != 1 || warnings[0] != "mind the gap" {
		t.Errorf("audit annotations %v, warnings %q", annotations, warnings)
	}

	// A matchCondition that does not compile fails per failurePolicy.
	bad := hook
	bad.SideEffects = ptr(admissionregistrationv1.SideEffectClassNone)
	bad.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "broken", Expression: "object.("}}
	src.validating = []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "v", ResourceVersion: "2"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{bad}}}
	err = p.Validating.Validate(context.Background(), podAttributes(false))
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusInternalServerError || !strings.Contains(err.Error(), `failed calling webhook "v.example.com"`) {
		t.Errorf("broken matchCondition with Fail: %v", err)
	}
	bad.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	src.validating[0] = src.validating[0].DeepCopy()
	src.validating[0].Webhooks[0] = bad
	src.validating[0].ResourceVersion = "3"
	if err := p.Validating.Validate(context.Background(), podAttributes(false)); err != nil {
		t.Errorf("broken matchCondition with Ignore: %v", err)
	}

	// The configurations of admission are never sent.
	cfg := &rest.Attributes{Operation: rest.OperationCreate, Resource: admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations")}
	if p.Validating.Handles(cfg) || p.Mutating.Handles(cfg) {
		t.Error("webhook configurations are handled")
	}
}

// TestDenialOnTheWire: a refusal as Kubernetes' webhooks write it (the
// response's reason in "status", as k8s.io/api/admission/v1 names the
// field) gives its message and code.
func TestDenialOnTheWire(t *testing.T) {
	s := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"` + string(review.Request.UID) +
			`","allowed":false,"status":{"metadata":{},"message":"the pod contains unwanted container name","code":403}}}`))
	}), webhooktest.Options{})
	hook := admissionregistrationv1.ValidatingWebhook{Name: "v.example.com", Rules: allPods, AdmissionReviewVersions: []string{"v1"},
		SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr(s.URL), CABundle: s.CABundle}}
	p := newPlugins(t, &fakeSource{validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "v", ResourceVersion: "1"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{hook}}}})
	err := p.Validating.Validate(context.Background(), podAttributes(false))
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden ||
		err.Error() != `admission webhook "v.example.com" denied the request: the pod contains unwanted container name` {
		t.Errorf("denial = %v", err)
	}

	// A reason and no message (agnhost's custom resource webhook): the
	// reason is the explanation; a code below 400 is 400.
	for _, tc := range []struct {
		result *metav1.Status
		code   int32
		msg    string
	}{
		{&metav1.Status{Reason: "the custom resource contains unwanted data"}, 400, `admission webhook "w.example.com" denied the request: the custom resource contains unwanted data`},
		{&metav1.Status{Code: 200, Message: "no", Reason: "ignored"}, 400, `admission webhook "w.example.com" denied the request: no`},
		{nil, 400, `admission webhook "w.example.com" denied the request without explanation`},
	} {
		err := denied("w.example.com", tc.result)
		if !errors.As(err, &se) || se.ErrStatus.Code != tc.code || err.Error() != tc.msg {
			t.Errorf("denied(%+v) = %v (code %d), want %q (code %d)", tc.result, err, se.ErrStatus.Code, tc.msg, tc.code)
		}
	}
}
