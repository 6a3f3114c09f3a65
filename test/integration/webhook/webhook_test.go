package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/test/integration/framework"
)

func startServer(t *testing.T) *client {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	return &client{t: t, s: s, http: s.HTTPClient(t)}
}

// newClient is a client of the same server for a subtest.
func (c *client) sub(t *testing.T) *client { return &client{t: t, s: c.s, http: c.http} }

func cmPath(ns string) string { return "/api/v1/namespaces/" + ns + "/configmaps" }

func TestAdmissionWebhooks(t *testing.T) {
	srv := startServer(t)

	t.Run("url allows and sees the request", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "allow")
		b := newBackend(t, allow)
		c.validating("allow-url", admissionregistrationv1.ValidatingWebhook{Name: "allow.example.com", ClientConfig: urlConfig(b, "/validate"),
			ObjectSelector: selectLabel("allow")})
		cm := configMap("a", map[string]string{"webhook-test": "allow"})
		c.waitCalled(b, ns, cm)
		c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusCreated)
		req := b.last()
		if req.Operation != admissionv1.Create || req.Kind != (admissionv1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) ||
			req.Resource != (admissionv1.GroupVersionResource{Version: "v1", Resource: "configmaps"}) || req.Namespace != ns || req.Name != "a" ||
			req.UserInfo.Username == "" || req.DryRun == nil || *req.DryRun {
			t.Errorf("request: %+v", req)
		}
		var sent corev1.ConfigMap
		if err := json.Unmarshal(req.Object.Raw, &sent); err != nil || sent.Kind != "ConfigMap" || sent.APIVersion != "v1" || sent.Data["k"] != "v" {
			t.Errorf("object sent: %s (%v)", req.Object.Raw, err)
		}
		// An update is sent with the old object.
		cm.Data["k"] = "w"
		c.mustDo(http.MethodPut, cmPath(ns)+"/a", cm, http.StatusOK)
		if req := b.last(); req.Operation != admissionv1.Update || len(req.OldObject.Raw) == 0 {
			t.Errorf("update request: %+v", req)
		}
		// Objects without the label are not sent.
		before := b.hits.Load()
		c.mustDo(http.MethodPost, cmPath(ns), configMap("unlabelled", nil), http.StatusCreated)
		if b.hits.Load() != before {
			t.Error("the objectSelector did not keep an unlabelled object from the webhook")
		}
	})

	t.Run("denies with its message and code", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "deny")
		b := newBackend(t, func(http.ResponseWriter, *http.Request, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "configmaps are frowned upon"},
				Warnings: []string{"think again"}}
		})
		c.validating("deny-url", admissionregistrationv1.ValidatingWebhook{Name: "deny.example.com", ClientConfig: urlConfig(b, ""), ObjectSelector: selectLabel("deny")})
		cm := configMap("d", map[string]string{"webhook-test": "deny"})
		c.waitCalled(b, ns, cm)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusForbidden)
		if st := r.status(); st.Message != `admission webhook "deny.example.com" denied the request: configmaps are frowned upon` || st.Reason != metav1.StatusReasonForbidden {
			t.Errorf("denial: %s", r)
		}
		if w := r.header.Get("Warning"); !strings.Contains(w, "think again") {
			t.Errorf("Warning header = %q", w)
		}
		c.mustDo(http.MethodGet, cmPath(ns)+"/d", nil, http.StatusNotFound)
	})

	t.Run("service form patches", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "patch")
		b := newBackend(t, func(_ http.ResponseWriter, _ *http.Request, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: true, PatchType: ptr(admissionv1.PatchTypeJSONPatch),
				Patch:    []byte(`[{"op":"add","path":"/data/patched","value":"yes"},{"op":"add","path":"/metadata/labels/mutated","value":"` + string(req.Operation) + `"}]`),
				Warnings: []string{"patched it"}}
		}, "hooks."+ns+".svc")
		cc := c.service(ns, "hooks", b, "/mutate")
		c.mutating("patch-svc", admissionregistrationv1.MutatingWebhook{Name: "patch.example.com", ClientConfig: cc, ObjectSelector: selectLabel("patch")})
		cm := configMap("p", map[string]string{"webhook-test": "patch"})
		c.waitCalled(b, ns, cm)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusCreated)
		var got corev1.ConfigMap
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Data["patched"] != "yes" || got.Labels["mutated"] != "CREATE" || got.Data["k"] != "v" {
			t.Errorf("stored object not patched: %s", r.body)
		}
		if !strings.Contains(r.header.Get("Warning"), "patched it") {
			t.Errorf("Warning header = %q", r.header.Get("Warning"))
		}
		r = c.mustDo(http.MethodGet, cmPath(ns)+"/p", nil, http.StatusOK)
		if !strings.Contains(string(r.body), `"patched":"yes"`) {
			t.Errorf("read back: %s", r.body)
		}
	})

	t.Run("timeouts per failurePolicy", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "slow")
		slow := func(_ http.ResponseWriter, r *http.Request, _ *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		fail := newBackend(t, slow)
		c.validating("slow-fail", admissionregistrationv1.ValidatingWebhook{Name: "slow-fail.example.com", ClientConfig: urlConfig(fail, ""),
			ObjectSelector: selectLabel("slow-fail"), TimeoutSeconds: ptr(int32(1)), FailurePolicy: ptr(admissionregistrationv1.Fail)})
		cm := configMap("f", map[string]string{"webhook-test": "slow-fail"})
		c.waitCalled(fail, ns, cm)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusInternalServerError)
		if st := r.status(); st.Reason != metav1.StatusReasonInternalError || !strings.Contains(st.Message, `failed calling webhook "slow-fail.example.com"`) {
			t.Errorf("timeout with Fail: %s", r)
		}

		ignore := newBackend(t, slow)
		c.mutating("slow-ignore", admissionregistrationv1.MutatingWebhook{Name: "slow-ignore.example.com", ClientConfig: urlConfig(ignore, ""),
			ObjectSelector: selectLabel("slow-ignore"), TimeoutSeconds: ptr(int32(1)), FailurePolicy: ptr(admissionregistrationv1.Ignore)})
		cm = configMap("i", map[string]string{"webhook-test": "slow-ignore"})
		c.waitCalled(ignore, ns, cm)
		c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusCreated)
	})

	t.Run("garbage answers per failurePolicy", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "garbage")
		garbage := func(w http.ResponseWriter, _ *http.Request, _ *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			_, _ = w.Write([]byte("<html>not a review"))
			return nil
		}
		fail := newBackend(t, garbage)
		c.validating("garbage-fail", admissionregistrationv1.ValidatingWebhook{Name: "garbage-fail.example.com", ClientConfig: urlConfig(fail, ""),
			ObjectSelector: selectLabel("garbage-fail")})
		cm := configMap("f", map[string]string{"webhook-test": "garbage-fail"})
		c.waitCalled(fail, ns, cm)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusInternalServerError)
		if st := r.status(); !strings.HasPrefix(st.Message, `Internal error occurred: failed calling webhook "garbage-fail.example.com"`) {
			t.Errorf("garbage with the default Fail: %s", r)
		}
		ignore := newBackend(t, garbage)
		c.validating("garbage-ignore", admissionregistrationv1.ValidatingWebhook{Name: "garbage-ignore.example.com", ClientConfig: urlConfig(ignore, ""),
			ObjectSelector: selectLabel("garbage-ignore"), FailurePolicy: ptr(admissionregistrationv1.Ignore)})
		cm = configMap("i", map[string]string{"webhook-test": "garbage-ignore"})
		c.waitCalled(ignore, ns, cm)
		c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusCreated)
	})

	t.Run("unreachable service per failurePolicy", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "unreachable")
		// A Service without endpoints.
		c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/services", &corev1.Service{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "nowhere"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(8443)}}},
		}, http.StatusCreated)
		cc := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: ns, Name: "nowhere"}}
		c.validating("unreachable-fail", admissionregistrationv1.ValidatingWebhook{Name: "unreachable-fail.example.com", ClientConfig: cc,
			ObjectSelector: selectLabel("unreachable-fail"), FailurePolicy: ptr(admissionregistrationv1.Fail)})
		cm := configMap("f", map[string]string{"webhook-test": "unreachable-fail"})
		c.waitEffect(ns, cm, http.StatusInternalServerError)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusInternalServerError)
		if st := r.status(); !strings.Contains(st.Message, `failed calling webhook "unreachable-fail.example.com"`) || !strings.Contains(st.Message, "no endpoints available") {
			t.Errorf("unreachable with Fail: %s", r)
		}
		c.validating("unreachable-ignore", admissionregistrationv1.ValidatingWebhook{Name: "unreachable-ignore.example.com", ClientConfig: cc,
			ObjectSelector: selectLabel("unreachable-ignore"), FailurePolicy: ptr(admissionregistrationv1.Ignore)})
		c.mustDo(http.MethodPost, cmPath(ns), configMap("i", map[string]string{"webhook-test": "unreachable-ignore"}), http.StatusCreated)
	})

	t.Run("namespaceSelector", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		on := c.namespace("selected", map[string]string{"webhooks": "nssel-on"})
		off := c.namespace("unselected", nil)
		b := newBackend(t, func(http.ResponseWriter, *http.Request, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "not in this namespace"}}
		})
		c.validating("nssel", admissionregistrationv1.ValidatingWebhook{Name: "nssel.example.com", ClientConfig: urlConfig(b, ""),
			ObjectSelector: selectLabel("nssel"), NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"webhooks": "nssel-on"}}})
		cm := configMap("x", map[string]string{"webhook-test": "nssel"})
		c.waitCalled(b, on, cm)
		r := c.mustDo(http.MethodPost, cmPath(on), cm, http.StatusBadRequest)
		if st := r.status(); st.Message != `admission webhook "nssel.example.com" denied the request: not in this namespace` {
			t.Errorf("denial: %s", r)
		}
		before := b.hits.Load()
		c.mustDo(http.MethodPost, cmPath(off), cm, http.StatusCreated)
		if b.hits.Load() != before {
			t.Error("a namespace outside the selector was sent")
		}
	})

	t.Run("matchConditions", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "conditions")
		b := newBackend(t, func(http.ResponseWriter, *http.Request, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "big data"}}
		})
		c.validating("conditions", admissionregistrationv1.ValidatingWebhook{Name: "conditions.example.com", ClientConfig: urlConfig(b, ""),
			ObjectSelector:  selectLabel("conditions"),
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "has-big", Expression: "has(object.data) && 'big' in object.data"}}})
		big := configMap("big", map[string]string{"webhook-test": "conditions"})
		big.Data["big"] = "1"
		c.waitCalled(b, ns, big)
		c.mustDo(http.MethodPost, cmPath(ns), big, http.StatusBadRequest)
		before := b.hits.Load()
		c.mustDo(http.MethodPost, cmPath(ns), configMap("small", map[string]string{"webhook-test": "conditions"}), http.StatusCreated)
		if b.hits.Load() != before {
			t.Error("an object the matchConditions exclude was sent")
		}
	})

	t.Run("configurations are never sent", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "exempt")
		b := newBackend(t, func(http.ResponseWriter, *http.Request, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Allowed: false}
		})
		rules := []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"", "admissionregistration.k8s.io"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		}}
		c.validating("exempt", admissionregistrationv1.ValidatingWebhook{Name: "exempt.example.com", ClientConfig: urlConfig(b, ""), Rules: rules, ObjectSelector: selectLabel("exempt")})
		cm := configMap("x", map[string]string{"webhook-test": "exempt"})
		c.waitCalled(b, ns, cm)
		r := c.mustDo(http.MethodPost, cmPath(ns), cm, http.StatusBadRequest)
		if st := r.status(); st.Message != `admission webhook "exempt.example.com" denied the request without explanation` {
			t.Errorf("denial: %s", r)
		}
		before := b.hits.Load()
		other := &admissionregistrationv1.ValidatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: metav1.ObjectMeta{Name: "exempt-other", Labels: map[string]string{"webhook-test": "exempt"}},
		}
		const path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
		c.mustDo(http.MethodPost, path, other, http.StatusCreated)
		c.mustDo(http.MethodDelete, path+"/exempt-other", nil, http.StatusOK)
		if b.hits.Load() != before {
			t.Error("a webhook configuration was sent to a webhook")
		}
	})

	t.Run("custom resources", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "custom")
		const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
		c.mustDo(http.MethodPost, crdPath, map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "widgets.wh.example.com"},
			"spec": map[string]any{"group": "wh.example.com", "scope": "Namespaced",
				"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
						"size": map[string]any{"type": "integer"}, "color": map[string]any{"type": "string"}}}}}}}}},
		}, http.StatusCreated)
		t.Cleanup(func() { c.do(http.MethodDelete, crdPath+"/widgets.wh.example.com", nil) })
		widgets := "/apis/wh.example.com/v1/namespaces/" + ns + "/widgets"
		framework.WaitUntil(t, time.Minute, "widgets served", func() bool { return c.do(http.MethodGet, widgets, nil).code == http.StatusOK })

		b := newBackend(t, func(_ http.ResponseWriter, _ *http.Request, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			if req.Kind != (admissionv1.GroupVersionKind{Group: "wh.example.com", Version: "v1", Kind: "Widget"}) {
				return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "unexpected kind " + req.Kind.Kind}}
			}
			return &admissionv1.AdmissionResponse{Allowed: true, PatchType: ptr(admissionv1.PatchTypeJSONPatch),
				Patch: []byte(`[{"op":"add","path":"/spec/color","value":"blue"}]`)}
		})
		c.mutating("custom", admissionregistrationv1.MutatingWebhook{Name: "widgets.example.com", ClientConfig: urlConfig(b, ""), ObjectSelector: selectLabel("custom"),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"wh.example.com"}, APIVersions: []string{"*"}, Resources: []string{"widgets"}},
			}}})
		widget := map[string]any{"apiVersion": "wh.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "labels": map[string]any{"webhook-test": "custom"}}, "spec": map[string]any{"size": 3}}
		before := b.hits.Load()
		framework.WaitUntil(t, 30*time.Second, "the webhook to be called", func() bool {
			c.do(http.MethodPost, widgets+"?dryRun=All", widget)
			return b.hits.Load() > before
		})
		r := c.mustDo(http.MethodPost, widgets, widget, http.StatusCreated)
		if !strings.Contains(string(r.body), `"color":"blue"`) || !strings.Contains(string(r.body), `"size":3`) {
			t.Errorf("custom resource not patched: %s", r.body)
		}
	})

	t.Run("dry run sent to a webhook without side effects on dry run", func(t *testing.T) {
		t.Parallel()
		c := srv.sub(t)
		ns := c.s.CreateNamespace(t, "dryrun")
		b := newBackend(t, allow)
		c.validating("dryrun", admissionregistrationv1.ValidatingWebhook{Name: "dryrun.example.com", ClientConfig: urlConfig(b, ""),
			ObjectSelector: selectLabel("dryrun"), SideEffects: ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun)})
		cm := configMap("d", map[string]string{"webhook-test": "dryrun"})
		c.waitCalled(b, ns, cm)
		if req := b.last(); req.DryRun == nil || !*req.DryRun {
			t.Errorf("a dry run was sent with dryRun %v", req.DryRun)
		}
		c.mustDo(http.MethodGet, cmPath(ns)+"/d", nil, http.StatusNotFound)
	})
}
