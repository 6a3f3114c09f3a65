package validation

import (
	"strings"
	"testing"

	resourcev1 "kubecore.io/api/resource/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

func ptr[T any](v T) *T { return &v }

func joined(errs field.ErrorList) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "; ")
}

func claim(mutate func(*resourcev1.DeviceClaim)) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", ResourceVersion: "1"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		}}}},
	}
	if mutate != nil {
		mutate(&c.Spec.Devices)
	}
	return c
}

func slice(mutate func(*resourcev1.ResourceSliceSpec)) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "1"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: ptr("node-a"),
			Pool:    resourcev1.ResourcePool{Name: "node-a", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0", Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: ptr("x")}}}},
		},
	}
	if mutate != nil {
		mutate(&s.Spec)
	}
	return s
}

// rejectingChecker refuses the expressions it lists, as a compiler would.
type rejectingChecker map[string]string

func (r rejectingChecker) Check(expr string, p *field.Path) *field.Error {
	if detail, bad := r[expr]; bad {
		return field.Invalid(p, expr, detail)
	}
	return nil
}

// selectors returns CEL selectors of the expressions.
func selectors(exprs ...string) []resourcev1.DeviceSelector {
	var out []resourcev1.DeviceSelector
	for _, e := range exprs {
		out = append(out, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: e}})
	}
	return out
}

// TestSelectorPaths checks that every CEL selector of a class, a claim
// (exactly and firstAvailable) and a template reaches the checker, at
// its field path.
func TestSelectorPaths(t *testing.T) {
	sel := rejectingChecker{"bad": "compilation failed"}
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu", ResourceVersion: "1"}, Spec: resourcev1.DeviceClassSpec{Selectors: selectors("good", "bad")}}
	firstAvailable := func(d *resourcev1.DeviceClaim) {
		d.Requests[0].Exactly.Selectors = selectors("bad")
		d.Requests = append(d.Requests, resourcev1.DeviceRequest{Name: "any", FirstAvailable: []resourcev1.DeviceSubRequest{
			{Name: "a", DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1, Selectors: selectors("good", "good", "bad")},
		}})
	}
	template := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: claim(firstAvailable).Spec}}
	for _, tc := range []struct {
		name string
		errs field.ErrorList
		want string
	}{
		{"class", ValidateDeviceClass(class, sel), `spec.selectors[1].cel.expression: Invalid value: "bad": compilation failed`},
		{"class update", ValidateDeviceClassUpdate(class, class, sel), `spec.selectors[1].cel.expression: Invalid value: "bad": compilation failed`},
		{"class unchecked", ValidateDeviceClass(class, nil), ``},
		{"claim", ValidateResourceClaim(claim(firstAvailable), sel), `spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "bad": compilation failed; ` +
			`spec.devices.requests[1].firstAvailable[0].selectors[2].cel.expression: Invalid value: "bad": compilation failed`},
		{"template", ValidateResourceClaimTemplate(template, sel), `spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "bad": compilation failed; ` +
			`spec.spec.devices.requests[1].firstAvailable[0].selectors[2].cel.expression: Invalid value: "bad": compilation failed`},
	} {
		if got := joined(tc.errs); got != tc.want {
			t.Errorf("%s: got  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		errs field.ErrorList
		want string
	}{
		{"claim valid", ValidateResourceClaim(claim(nil), nil), ""},
		{"claim without a request kind", ValidateResourceClaim(claim(func(d *resourcev1.DeviceClaim) { d.Requests[0].Exactly = nil }), nil),
			"spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"},
		{"claim bad request", ValidateResourceClaim(claim(func(d *resourcev1.DeviceClaim) {
			d.Requests = append(d.Requests, resourcev1.DeviceRequest{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{AllocationMode: "Some", Count: 0}})
		}), nil), `spec.devices.requests[1].name: Duplicate value: "gpu"; spec.devices.requests[1].exactly.deviceClassName: Required value; spec.devices.requests[1].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`},
		{"claim count", ValidateResourceClaim(claim(func(d *resourcev1.DeviceClaim) { d.Requests[0].Exactly.Count = 0 }), nil),
			"spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"},
		{"claim constraint", ValidateResourceClaim(claim(func(d *resourcev1.DeviceClaim) {
			d.Constraints = []resourcev1.DeviceConstraint{{Requests: []string{"tpu"}}}
		}), nil), `spec.devices.constraints[0].requests[0]: Invalid value: "tpu": must be the name of a request in the claim`},
		{"claim config", ValidateResourceClaim(claim(func(d *resourcev1.DeviceClaim) {
			d.Config = []resourcev1.DeviceClaimConfiguration{{DeviceConfiguration: resourcev1.DeviceConfiguration{Opaque: &resourcev1.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: runtime.RawExtension{Raw: []byte(`[1]`)}}}}}
		}), nil), "spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": parameters must be a valid JSON object"},
		{"claim spec immutable", ValidateResourceClaimUpdate(claim(func(d *resourcev1.DeviceClaim) { d.Requests[0].Exactly.Count = 2 }), claim(nil), nil),
			"spec: Invalid value:"},
		{"class without CEL", ValidateDeviceClass(&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{}}}}, nil),
			"spec.selectors[0].cel: Required value"},
		{"template", ValidateResourceClaimTemplate(&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: claim(func(d *resourcev1.DeviceClaim) { d.Requests[0].Name = "Bad" }).Spec}}, nil),
			`spec.spec.devices.requests[0].name: Invalid value: "Bad"`},
		{"slice valid", ValidateResourceSlice(slice(nil)), ""},
		{"slice without node", ValidateResourceSlice(slice(func(s *resourcev1.ResourceSliceSpec) { s.NodeName = nil })),
			"spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"},
		{"slice pool and devices", ValidateResourceSlice(slice(func(s *resourcev1.ResourceSliceSpec) {
			s.Pool.ResourceSliceCount = 0
			s.Devices = append(s.Devices, resourcev1.Device{Name: "gpu-0", Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {}}})
		})), `spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero; spec.devices[1].name: Duplicate value: "gpu-0"; spec.devices[1].attributes[model]: Required value: exactly one value must be specified`},
		{"slice node immutable", ValidateResourceSliceUpdate(slice(func(s *resourcev1.ResourceSliceSpec) { s.NodeName = ptr("node-b") }), slice(nil)),
			`spec.nodeName: Invalid value: "node-b": field is immutable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := joined(tc.errs)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
