package webhook

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestConnectWebhook checks that pods/attach and pods/exec reach
// webhooks as a CONNECT whose object is the request's options, that a
// webhook can deny an attach with its message (the conformance spec "deny
// attaching pod"), and that a rule without the subresource lets the
// connection through to the kubelet.
func TestConnectWebhook(t *testing.T) {
	c := startServer(t)
	ns := c.s.CreateNamespace(t, "connect")
	// The pod is bound to a node that does not exist: a connection that
	// admission lets through fails later, looking the node's kubelet up.
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "to-be-attached-pod"},
		Spec: corev1.PodSpec{NodeName: "no-such-node", AutomountServiceAccountToken: ptr(false),
			Containers: []corev1.Container{{Name: "container1", Image: "busybox"}}},
	}, http.StatusCreated)
	b := newBackend(t, func(_ http.ResponseWriter, _ *http.Request, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var opts corev1.PodAttachOptions
		if err := json.Unmarshal(req.Object.Raw, &opts); err != nil || opts.Kind != "PodAttachOptions" || opts.APIVersion != "v1" {
			return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 400, Message: "not a v1 PodAttachOptions: " + string(req.Object.Raw)}}
		}
		if !opts.Stdin || opts.Container != "container1" {
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
			Message: "attaching to pod 'to-be-attached-pod' is not allowed"}}
	})
	c.validating("deny-attach", admissionregistrationv1.ValidatingWebhook{
		Name: "deny-attach.example.com", ClientConfig: urlConfig(b, "/pods/attach"),
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/attach"}},
		}},
	})
	podPath := "/api/v1/namespaces/" + ns + "/pods/to-be-attached-pod"
	const attach = "/attach?container=container1&stdin=true&stdout=true&tty=true"

	var r result
	framework.WaitUntil(t, 30*time.Second, "the webhook to deny the attach", func() bool {
		r = c.do(http.MethodPost, podPath+attach, nil)
		return r.code == http.StatusForbidden
	})
	const want = `admission webhook "deny-attach.example.com" denied the request: attaching to pod 'to-be-attached-pod' is not allowed`
	if st := r.status(); st.Message != want || st.Reason != metav1.StatusReasonForbidden || st.Code != http.StatusForbidden {
		t.Errorf("denial: %s\nwant message %q", r, want)
	}
	req := b.last()
	if req.Operation != admissionv1.Connect || req.Kind != (admissionv1.GroupVersionKind{Version: "v1", Kind: "PodAttachOptions"}) ||
		req.Resource != (admissionv1.GroupVersionResource{Version: "v1", Resource: "pods"}) || req.SubResource != "attach" ||
		req.Name != "to-be-attached-pod" || req.Namespace != ns || len(req.OldObject.Raw) != 0 {
		t.Errorf("request: %+v", req)
	}
	var opts corev1.PodAttachOptions
	if err := json.Unmarshal(req.Object.Raw, &opts); err != nil || !opts.Stdin || !opts.Stdout || !opts.TTY || opts.Stderr || opts.Container != "container1" {
		t.Errorf("object sent: %s (%v)", req.Object.Raw, err)
	}

	// The webhook allows an attach without stdin: it goes on to the
	// kubelet, which the missing node does not have.
	before := b.hits.Load()
	r = c.do(http.MethodPost, podPath+"/attach?container=container1&stdout=true", nil)
	if r.code == http.StatusForbidden || b.hits.Load() != before+1 {
		t.Errorf("allowed attach: %s (webhook calls %d, want %d)", r, b.hits.Load(), before+1)
	}
	// An exec is not in the webhook's rules: it is not sent.
	before = b.hits.Load()
	r = c.do(http.MethodPost, podPath+"/exec?container=container1&stdin=true&stdout=true&command=true", nil)
	if r.code == http.StatusForbidden || b.hits.Load() != before {
		t.Errorf("exec: %s (webhook called %d times)", r, b.hits.Load()-before)
	}
}
