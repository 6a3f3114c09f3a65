package generic

import (
	"context"
	"net/http"
	"testing"

	v1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// TestFieldSelectorOnUnsupportedField: a list, watch or delete-collection
// whose field selector names a field the resource does not offer is 400
// "field label not supported", as Kubernetes answers, instead of silently
// matching nothing; offered fields and metadata.name/namespace pass.
func TestFieldSelectorOnUnsupportedField(t *testing.T) {
	withNode := func(s *Store) {
		s.GetAttrs = func(obj runtime.Object) (labels.Set, fields.Set, error) {
			p := obj.(*v1.Pod)
			return labels.Set(p.Labels), fields.Set{"metadata.name": p.Name, "metadata.namespace": p.Namespace, "spec.nodeName": p.Spec.NodeName}, nil
		}
	}
	tests := []struct {
		name     string
		attrs    func(*Store)
		selector string
		bad      string
	}{
		{name: "metadata.name", selector: "metadata.name=a"},
		{name: "metadata.namespace", selector: "metadata.namespace!=x"},
		{name: "a field the default attrs lack", selector: "spec.nodeName=n1", bad: "spec.nodeName"},
		{name: "one bad term among good ones", selector: "metadata.name=a,status.phase=Running", bad: "status.phase"},
		{name: "a field GetAttrs offers", attrs: withNode, selector: "spec.nodeName=n1"},
		{name: "a field GetAttrs lacks", attrs: withNode, selector: "spec.nodeName=n1,status.podIP=1.2.3.4", bad: "status.podIP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(podStrategy{})
			if tt.attrs != nil {
				tt.attrs(s)
			}
			mustCreate(t, s, "default", newPod("a"))
			sel, err := fields.ParseSelector(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			opts := &rest.ListOptions{LabelSelector: labels.Everything(), FieldSelector: sel}
			ctx := nsCtx("default")
			calls := map[string]func() error{
				"list": func() error { _, err := s.List(ctx, opts); return err },
				"watch": func() error {
					wctx, cancel := context.WithCancel(ctx)
					defer cancel()
					w, err := s.Watch(wctx, opts)
					if err == nil {
						w.Stop()
					}
					return err
				},
				"deletecollection": func() error {
					_, err := s.DeleteCollection(ctx, nil, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}, opts)
					return err
				},
			}
			for verb, call := range calls {
				err := call()
				if tt.bad == "" {
					if err != nil {
						t.Errorf("%s: %v", verb, err)
					}
					continue
				}
				st := statusOf(t, err, http.StatusBadRequest)
				if want := "field label not supported: " + tt.bad; st.Reason != metav1.StatusReasonBadRequest || st.Message != want {
					t.Errorf("%s: %s %q, want BadRequest %q", verb, st.Reason, st.Message, want)
				}
			}
		})
	}
}
