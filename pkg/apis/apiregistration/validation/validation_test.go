package validation

import (
	"strings"
	"testing"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateAPIService(t *testing.T) {
	valid := func() *apiregistrationv1.APIService {
		return &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: apiregistrationv1.APIServiceSpec{
			Group: "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 100, InsecureSkipTLSVerify: true,
			Service: &apiregistrationv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server"},
		}}
	}
	for name, tc := range map[string]struct {
		mutate func(*apiregistrationv1.APIService)
		want   string
	}{
		"valid": {func(*apiregistrationv1.APIService) {}, ""},
		"local v1": {func(a *apiregistrationv1.APIService) {
			a.Name, a.Spec = "v1.", apiregistrationv1.APIServiceSpec{Version: "v1", GroupPriorityMinimum: 1, VersionPriority: 1}
		}, ""},
		"name": {func(a *apiregistrationv1.APIService) { a.Name = "metrics" }, "metadata.name: Invalid value: \"metrics\": must be `spec.version+\".\"+spec.group`: \"v1beta1.metrics.k8s.io\""},
		"group": {func(a *apiregistrationv1.APIService) { a.Name, a.Spec.Group = "v1beta1.", "" },
			"spec.group: Required value: only v1 may have an empty group and it better be legacy kube"},
		"priority":  {func(a *apiregistrationv1.APIService) { a.Spec.GroupPriorityMinimum = 0 }, "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000"},
		"version":   {func(a *apiregistrationv1.APIService) { a.Spec.VersionPriority = 1001 }, "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"},
		"namespace": {func(a *apiregistrationv1.APIService) { a.Spec.Service.Namespace = "" }, "spec.service.namespace: Required value"},
		"port":      {func(a *apiregistrationv1.APIService) { p := int32(70000); a.Spec.Service.Port = &p }, "spec.service.port: Invalid value: 70000: port is not valid"},
		"ca and insecure": {func(a *apiregistrationv1.APIService) { a.Spec.CABundle = []byte("pem") },
			"spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"},
		"local with ca": {func(a *apiregistrationv1.APIService) {
			a.Spec.Service, a.Spec.InsecureSkipTLSVerify, a.Spec.CABundle = nil, false, []byte("pem")
		},
			`spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle`},
	} {
		a := valid()
		tc.mutate(a)
		got := ValidateAPIService(a).ToAggregate()
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: unexpected %v", name, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", name, got, tc.want)
		}
	}
}
