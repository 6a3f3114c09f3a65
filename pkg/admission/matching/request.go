package matching

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	admissionv1 "kubecore.io/api/admission/v1"
	authenticationv1 "kubecore.io/api/authentication/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// NewRequest builds the AdmissionRequest of the write a as m matched it:
// kind and resource are m's, requestKind and requestResource the
// write's own; the objects and options are their JSON with apiVersion and
// kind set.
func NewRequest(a *rest.Attributes, m Match) (*admissionv1.AdmissionRequest, error) {
	r := &admissionv1.AdmissionRequest{
		UID:                types.UID(uuid.NewString()),
		Kind:               gvk(m.Kind),
		Resource:           gvr(m.Resource),
		SubResource:        a.Subresource,
		RequestKind:        ptr(gvk(a.Kind)),
		RequestResource:    ptr(gvr(a.Resource)),
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		DryRun:             &a.DryRun,
	}
	if a.UserInfo != nil {
		r.UserInfo = authenticationv1.UserInfo{Username: a.UserInfo.Name, UID: a.UserInfo.UID, Groups: a.UserInfo.Groups}
		if len(a.UserInfo.Extra) > 0 {
			r.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range a.UserInfo.Extra {
				r.UserInfo.Extra[k] = v
			}
		}
	}
	var err error
	if r.Object.Raw, err = EncodeObject(a.Object, m.Kind); err != nil {
		return nil, fmt.Errorf("encode the object: %w", err)
	}
	if r.OldObject.Raw, err = EncodeObject(a.OldObject, m.Kind); err != nil {
		return nil, fmt.Errorf("encode the old object: %w", err)
	}
	if r.Options.Raw, err = EncodeObject(a.Options, optionsKind(a.Options)); err != nil {
		return nil, fmt.Errorf("encode the options: %w", err)
	}
	return r, nil
}

func ptr[T any](v T) *T { return &v }

func gvk(k schema.GroupVersionKind) admissionv1.GroupVersionKind {
	return admissionv1.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

func gvr(r schema.GroupVersionResource) admissionv1.GroupVersionResource {
	return admissionv1.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

func optionsKind(opts runtime.Object) schema.GroupVersionKind {
	kind := ""
	switch opts.(type) {
	case *metav1.CreateOptions:
		kind = "CreateOptions"
	case *metav1.UpdateOptions:
		kind = "UpdateOptions"
	case *metav1.DeleteOptions:
		kind = "DeleteOptions"
	case *metav1.PatchOptions:
		kind = "PatchOptions"
	}
	return schema.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: kind}
}

// EncodeObject is obj's JSON with apiVersion and kind set to kind when the
// object does not carry them (typed objects in the server do not); nil for
// a nil obj.
func EncodeObject(obj runtime.Object, kind schema.GroupVersionKind) ([]byte, error) {
	if obj == nil {
		return nil, nil
	}
	if k := obj.GetObjectKind().GroupVersionKind(); k.Kind == "" && kind.Kind != "" {
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(kind)
	}
	return json.Marshal(obj)
}
