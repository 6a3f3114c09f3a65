package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Objects reads what the policy plugins need, from the watch cache.
type Objects interface {
	ValidatingAdmissionPolicies(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error)
	ValidatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error)
	MutatingAdmissionPolicies(ctx context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicy, error)
	MutatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicyBinding, error)
	// Namespace returns the namespace, nil when there is none.
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
}

// Params reads the parameter objects of a policy, of any kind the server
// serves. Namespaced tells whether the kind is namespaced; List returns
// the objects of namespace ("" for all or for a cluster-scoped kind)
// whose name is name (when set) and whose labels match selector.
type Params interface {
	Namespaced(gvk schema.GroupVersionKind) (bool, error)
	List(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string, selector labels.Selector) ([]runtime.Object, error)
}

// Kinds names the kind (with its version) of a built-in object; custom
// objects carry theirs.
type Kinds interface {
	ObjectKind(obj runtime.Object) (schema.GroupVersionKind, error)
}

// isExempt reports the writes no policy sees, as in Kubernetes: those of
// admission configuration itself, so that a bad policy can be fixed.
func isExempt(a *rest.Attributes) bool {
	if a.Resource.Group != admissionregistrationv1.GroupName {
		return false
	}
	switch a.Resource.Resource {
	case "validatingwebhookconfigurations", "mutatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}

// input is what the expressions of every policy see on one request,
// built once when the first policy matches.
type input struct {
	attrs     *rest.Attributes
	gvk       schema.GroupVersionKind
	objMap    map[string]any
	object    ref.Val
	oldObject ref.Val
	request   ref.Val
	namespace ref.Val
	nsObject  *corev1.Namespace
}

// toMap returns the JSON form of obj with apiVersion and kind set.
func toMap(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	if obj == nil || (reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil()) {
		return nil, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", gvk.Kind, err)
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", gvk.Kind, err)
	}
	normalizeNumbers(m)
	if m["kind"] == nil || m["kind"] == "" {
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	}
	return m, nil
}

// celValue is the CEL value of a JSON object whose numbers are int64 or
// float64: converted lazily, as expressions read it.
func celValue(m map[string]any) ref.Val {
	if m == nil {
		return types.NullValue
	}
	return types.DefaultTypeAdapter.NativeToValue(m)
}

// kindOf is the kind of the written object with its version.
func kindOf(kinds Kinds, a *rest.Attributes) schema.GroupVersionKind {
	gvk := a.Kind
	if gvk.Version != "" {
		return gvk
	}
	obj := a.Object
	if obj == nil {
		obj = a.OldObject
	}
	if obj != nil {
		if k := obj.GetObjectKind().GroupVersionKind(); k.Kind != "" && k.Version != "" {
			return k
		}
		if kinds != nil {
			if k, err := kinds.ObjectKind(obj); err == nil {
				return k
			}
		}
	}
	return gvk
}

// newInput builds the input of the write a, which a policy matched as m.
func newInput(ctx context.Context, objects Objects, kinds Kinds, a *rest.Attributes, m matching.Match) (*input, error) {
	in := &input{attrs: a, gvk: kindOf(kinds, a)}
	if m.Kind.Version != "" {
		in.gvk = m.Kind
	}
	var err error
	if in.objMap, err = toMap(a.Object, in.gvk); err != nil {
		return nil, err
	}
	old, err := toMap(a.OldObject, in.gvk)
	if err != nil {
		return nil, err
	}
	in.object, in.oldObject = celValue(in.objMap), celValue(old)
	in.request = celValue(requestMap(a, in.gvk, m.Resource))
	in.namespace = types.NullValue
	if a.Namespace != "" {
		ns, err := objects.Namespace(ctx, a.Namespace)
		if err != nil {
			return nil, fmt.Errorf("read namespace %s: %w", a.Namespace, err)
		}
		if ns != nil {
			in.nsObject = ns
			m, err := toMap(ns, corev1.SchemeGroupVersion.WithKind("Namespace"))
			if err != nil {
				return nil, err
			}
			in.namespace = celValue(m)
		}
	}
	return in, nil
}

// setObject replaces the object expressions see after a mutation.
func (in *input) setObject(m map[string]any) {
	in.objMap = m
	in.object = celValue(m)
}

// requestMap is the admission/v1 AdmissionRequest of the write, as the
// request variable holds it.
func requestMap(a *rest.Attributes, gvk schema.GroupVersionKind, matched schema.GroupVersionResource) map[string]any {
	kind := map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
	if matched.Resource == "" {
		matched = a.Resource
	}
	res := map[string]any{"group": matched.Group, "version": matched.Version, "resource": matched.Resource}
	if res["version"] == "" {
		res["version"] = gvk.Version
	}
	user := map[string]any{}
	if u := a.UserInfo; u != nil {
		user["username"] = u.Name
		if u.UID != "" {
			user["uid"] = u.UID
		}
		groups := make([]any, len(u.Groups))
		for i, g := range u.Groups {
			groups[i] = g
		}
		user["groups"] = groups
		if len(u.Extra) > 0 {
			extra := map[string]any{}
			for k, vs := range u.Extra {
				l := make([]any, len(vs))
				for i, v := range vs {
					l[i] = v
				}
				extra[k] = l
			}
			user["extra"] = extra
		}
	}
	m := map[string]any{
		"kind": kind, "resource": res, "requestKind": kind, "requestResource": res,
		"name": a.Name, "namespace": a.Namespace, "operation": string(a.Operation),
		"userInfo": user, "dryRun": a.DryRun,
	}
	if a.Subresource != "" {
		m["subResource"] = a.Subresource
	}
	if a.Options != nil {
		if opts, err := toMap(a.Options, metav1.SchemeGroupVersion.WithKind(reflect.TypeOf(a.Options).Elem().Name())); err == nil {
			m["options"] = opts
		}
	}
	return m
}

// normalizeNumbers replaces the json.Numbers of v, in place, by int64
// (whole numbers) or float64.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// decodeJSON decodes b as a JSON object with numbers normalized.
func decodeJSON(b []byte) (map[string]any, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	normalizeNumbers(m)
	return m, nil
}
