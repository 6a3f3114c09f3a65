package watch

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

func ptrTo[T any](v T) *T { return &v }

// protobufCRD is a definition using what a schema's protobuf encoding
// carries: raw JSON defaults and enums, doubles, nested schemas, items,
// additionalProperties as a boolean and as a schema, and the extensions.
func protobufCRD() *apiextensionsv1.CustomResourceDefinition {
	props := map[string]apiextensionsv1.JSONSchemaProps{
		"size":  {Type: "integer", Minimum: ptrTo(0.0), Maximum: ptrTo(10.5), Default: &apiextensionsv1.JSON{Raw: []byte(`3`)}},
		"mode":  {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"Fast"`)}, {Raw: []byte(`"Slow"`)}}},
		"port":  {XIntOrString: true},
		"tags":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}, XListType: ptrTo("set")},
		"extra": {Type: "object", XPreserveUnknownFields: ptrTo(true)},
		"env": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
			Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"},
		}},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.protobuf.kubecore.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "protobuf.kubecore.test",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList", ShortNames: []string{"gz"}},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:     "object",
					Required: []string{"spec"},
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", Properties: props},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "boolean", Nullable: true}}},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.size"},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "integer", JSONPath: ".spec.size", Priority: 1}},
			}},
		},
	}
}

// TestCustomResourceDefinitionProtobuf creates, reads, lists, updates,
// watches and deletes a CustomResourceDefinition in protobuf, as the
// apiextensions clientset does by default.
func TestCustomResourceDefinitionProtobuf(t *testing.T) {
	s := startServer(t)
	const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	ctx := context.Background()
	crdRes := resource{group: "apiextensions.k8s.io", version: "v1", name: "customresourcedefinitions", kind: "CustomResourceDefinition"}
	rec := s.c.openWatch(crdRes, "watch=1&allowWatchBookmarks=true&resourceVersion="+s.c.listRV(crdRes), protobuf.ContentType, s.ser)
	defer rec.stop()
	if rec.contentType != protobuf.WatchContentType {
		t.Fatalf("watch answered %s, want %s", rec.contentType, protobuf.WatchContentType)
	}

	decode := func(what string, code, wantCode int, body []byte, h http.Header, into runtime.Object) {
		t.Helper()
		if code != wantCode {
			t.Fatalf("%s: %d %s, want %d", what, code, body, wantCode)
		}
		if ct := h.Get("Content-Type"); ct != protobuf.ContentType {
			t.Fatalf("%s answered %s, want %s", what, ct, protobuf.ContentType)
		}
		if err := runtime.DecodeInto(s.ser, body, into); err != nil {
			t.Fatalf("%s: decode: %v", what, err)
		}
	}
	sent := protobufCRD()
	body, err := runtime.Encode(s.ser, sent)
	if err != nil {
		t.Fatal(err)
	}
	var created apiextensionsv1.CustomResourceDefinition
	code, data, h := s.c.do(ctx, http.MethodPost, path, protobuf.ContentType, body, protobuf.ContentType)
	decode("create", code, http.StatusCreated, data, h, &created)
	if !reflect.DeepEqual(created.Spec.Versions[0].Schema, sent.Spec.Versions[0].Schema) {
		t.Errorf("the schema came back as %+v, want %+v", created.Spec.Versions[0].Schema.OpenAPIV3Schema, sent.Spec.Versions[0].Schema.OpenAPIV3Schema)
	}
	if !reflect.DeepEqual(created.Spec.Names, sent.Spec.Names) || created.Spec.Scope != sent.Spec.Scope || len(created.Spec.Versions) != 1 ||
		!reflect.DeepEqual(created.Spec.Versions[0].Subresources, sent.Spec.Versions[0].Subresources) ||
		!reflect.DeepEqual(created.Spec.Versions[0].AdditionalPrinterColumns, sent.Spec.Versions[0].AdditionalPrinterColumns) {
		t.Errorf("the spec came back as %+v, want %+v", created.Spec, sent.Spec)
	}

	// The definition is served: its status says so, in protobuf too.
	var got apiextensionsv1.CustomResourceDefinition
	deadline := time.Now().Add(30 * time.Second)
	for established := false; !established; {
		code, data, h = s.c.do(ctx, http.MethodGet, path+"/"+sent.Name, "", nil, protobuf.ContentType)
		decode("get", code, http.StatusOK, data, h, &got)
		for _, c := range got.Status.Conditions {
			established = established || c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue && !c.LastTransitionTime.IsZero()
		}
		if !established && time.Now().After(deadline) {
			t.Fatalf("not Established after 30s: %+v", got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.Status.AcceptedNames.Kind != "Gizmo" || len(got.Status.StoredVersions) != 1 {
		t.Errorf("status %+v", got.Status)
	}

	var list apiextensionsv1.CustomResourceDefinitionList
	code, data, h = s.c.do(ctx, http.MethodGet, path, "", nil, protobuf.ContentType)
	decode("list", code, http.StatusOK, data, h, &list)
	found := false
	for _, it := range list.Items {
		found = found || it.Name == sent.Name
	}
	if !found {
		t.Errorf("the list of %d definitions lacks %s", len(list.Items), sent.Name)
	}

	got.Labels = map[string]string{"updated": "protobuf"}
	if body, err = runtime.Encode(s.ser, &got); err != nil {
		t.Fatal(err)
	}
	var updated apiextensionsv1.CustomResourceDefinition
	code, data, h = s.c.do(ctx, http.MethodPut, path+"/"+sent.Name, protobuf.ContentType, body, protobuf.ContentType)
	decode("update", code, http.StatusOK, data, h, &updated)
	if updated.Labels["updated"] != "protobuf" {
		t.Errorf("update lost the label: %v", updated.Labels)
	}

	s.c.json(http.MethodDelete, path+"/"+sent.Name, nil, nil, http.StatusOK)
	deadline = time.Now().Add(30 * time.Second)
	for {
		evs, err := rec.snapshot()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		var seq []string
		for _, e := range evs {
			if e.typ == "ERROR" || e.kind != "CustomResourceDefinition" {
				t.Fatalf("watch event %s", e)
			}
			if e.name == sent.Name {
				seq = append(seq, e.typ)
			}
		}
		if len(seq) > 0 && seq[0] == "ADDED" && seq[len(seq)-1] == "DELETED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch events of %s after 30s: %v", sent.Name, seq)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
