package v1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/types"
)

func ptr[T any](v T) *T { return &v }

// The expected documents below are written in the shape the Kubernetes
// apiserver sends and kubectl/client-go parse.
func TestWireJSON(t *testing.T) {
	created := Unix(1704067200, 0) // 2024-01-01T00:00:00Z
	tests := []struct {
		name string
		obj  any
		want string
	}{
		{
			name: "Status NotFound",
			obj: &Status{
				TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   StatusFailure,
				Message:  `pods "nginx" not found`,
				Reason:   StatusReasonNotFound,
				Details:  &StatusDetails{Name: "nginx", Kind: "pods"},
				Code:     404,
			},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"pods \"nginx\" not found","reason":"NotFound",
				"details":{"name":"nginx","kind":"pods"},"code":404}`,
		},
		{
			name: "Status Invalid with causes",
			obj: &Status{
				TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   StatusFailure,
				Message:  `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
				Reason:   StatusReasonInvalid,
				Details: &StatusDetails{
					Name: "web", Group: "apps", Kind: "Deployment",
					Causes: []StatusCause{{
						Type:    CauseTypeFieldValueInvalid,
						Message: "Invalid value: -1: must be greater than or equal to 0",
						Field:   "spec.replicas",
					}},
				},
				Code: 422,
			},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
				"reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment",
				"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},
				"code":422}`,
		},
		{
			name: "Status Success of a delete",
			obj: &Status{
				TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   StatusSuccess,
				Details:  &StatusDetails{Name: "nginx", Kind: "pods", UID: "6b1d5b4e"},
			},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",
				"details":{"name":"nginx","kind":"pods","uid":"6b1d5b4e"}}`,
		},
		{
			name: "Status TooManyRequests",
			obj: &Status{
				TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   StatusFailure, Message: "slow down", Reason: StatusReasonTooManyRequests,
				Details: &StatusDetails{RetryAfterSeconds: 1}, Code: 429,
			},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down",
				"reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
		},
		{
			name: "Table of pods with metadata objects",
			obj: &Table{
				TypeMeta: TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
				ListMeta: ListMeta{ResourceVersion: "1234"},
				ColumnDefinitions: []TableColumnDefinition{
					{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."},
					{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
					{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted."},
					{Name: "IP", Type: "string", Description: "IP address allocated to the pod.", Priority: 1},
				},
				Rows: []TableRow{{
					Cells: []any{"nginx", "1/1", "0", "10.0.0.5"},
					Object: json.RawMessage(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",` +
						`"metadata":{"name":"nginx","namespace":"default","uid":"u1","resourceVersion":"1234",` +
						`"creationTimestamp":"2024-01-01T00:00:00Z"}}`),
				}, {
					Cells:      []any{"job-x", "0/1", "0", "<none>"},
					Conditions: []TableRowCondition{{Type: RowCompleted, Status: ConditionTrue, Reason: "Succeeded", Message: "The pod has completed successfully."}},
				}},
			},
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1234"},
				"columnDefinitions":[
				 {"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace.","priority":0},
				 {"name":"Ready","type":"string","format":"","description":"The aggregate readiness state of this pod for accepting traffic.","priority":0},
				 {"name":"Restarts","type":"string","format":"","description":"The number of times the containers in this pod have been restarted.","priority":0},
				 {"name":"IP","type":"string","format":"","description":"IP address allocated to the pod.","priority":1}],
				"rows":[
				 {"cells":["nginx","1/1","0","10.0.0.5"],
				  "object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"nginx","namespace":"default","uid":"u1","resourceVersion":"1234","creationTimestamp":"2024-01-01T00:00:00Z"}}},
				 {"cells":["job-x","0/1","0","\u003cnone\u003e"],
				  "conditions":[{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}]}]}`,
		},
		{
			name: "APIResourceList of apps/v1",
			obj: &APIResourceList{
				TypeMeta:     TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: "apps/v1",
				APIResources: []APIResource{
					{
						Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment",
						Verbs:      Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
						ShortNames: []string{"deploy"}, Categories: []string{"all"}, StorageVersionHash: "8aSe+NMegvE=",
					},
					{
						Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale",
						Verbs: Verbs{"get", "patch", "update"},
					},
					{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: Verbs{"get", "patch", "update"}},
				},
			},
			want: `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
				{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment",
				 "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],
				 "shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="},
				{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
				{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]}]}`,
		},
		{
			name: "APIVersions at /api",
			obj: &APIVersions{
				TypeMeta:                   TypeMeta{Kind: "APIVersions"},
				Versions:                   []string{"v1"},
				ServerAddressByClientCIDRs: []ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: "192.168.1.10:6443"}},
			},
			want: `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"192.168.1.10:6443"}]}`,
		},
		{
			name: "APIGroupList at /apis",
			obj: &APIGroupList{
				TypeMeta: TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
				Groups: []APIGroup{{
					Name:             "apps",
					Versions:         []GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
					PreferredVersion: GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
				}},
			},
			want: `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps",
				"versions":[{"groupVersion":"apps/v1","version":"v1"}],
				"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
		},
		{
			name: "APIGroup at /apis/apps",
			obj: &APIGroup{
				TypeMeta:         TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
				Name:             "apps",
				Versions:         []GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
				PreferredVersion: GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
			},
			want: `{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
				"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}`,
		},
		{
			name: "WatchEvent",
			obj:  &WatchEvent{Type: "ADDED", Object: json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`)},
			want: `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}}`,
		},
		{
			name: "DeleteOptions body",
			obj: &DeleteOptions{
				TypeMeta:           TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"},
				GracePeriodSeconds: ptr[int64](0),
				Preconditions:      &Preconditions{UID: ptr(types.UID("abc")), ResourceVersion: ptr("5")},
				PropagationPolicy:  ptr(DeletePropagationForeground),
				DryRun:             []string{DryRunAll},
			},
			want: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,
				"preconditions":{"uid":"abc","resourceVersion":"5"},"propagationPolicy":"Foreground","dryRun":["All"]}`,
		},
		{
			name: "ListOptions",
			obj: &ListOptions{
				LabelSelector: "app=web", Watch: true, AllowWatchBookmarks: true, ResourceVersion: "10",
				ResourceVersionMatch: ResourceVersionMatchNotOlderThan, TimeoutSeconds: ptr[int64](300),
				Limit: 500, Continue: "tok", SendInitialEvents: ptr(true),
			},
			want: `{"labelSelector":"app=web","watch":true,"allowWatchBookmarks":true,"resourceVersion":"10",
				"resourceVersionMatch":"NotOlderThan","timeoutSeconds":300,"limit":500,"continue":"tok","sendInitialEvents":true}`,
		},
		{
			name: "PatchOptions",
			obj:  &PatchOptions{Force: ptr(false), FieldManager: "kubectl", FieldValidation: FieldValidationStrict},
			want: `{"force":false,"fieldManager":"kubectl","fieldValidation":"Strict"}`,
		},
		{
			name: "PartialObjectMetadataList",
			obj: &PartialObjectMetadataList{
				TypeMeta: TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
				ListMeta: ListMeta{ResourceVersion: "7", Continue: "c", RemainingItemCount: ptr[int64](3)},
				Items: []PartialObjectMetadata{{
					TypeMeta: TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
					ObjectMeta: ObjectMeta{
						Name: "a", Namespace: "default", UID: "u", ResourceVersion: "6", Generation: 2,
						CreationTimestamp: created, Labels: map[string]string{"app": "web"},
						OwnerReferences: []OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "r", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
						Finalizers:      []string{FinalizerDeleteDependents},
					},
				}},
			},
			want: `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",
				"metadata":{"resourceVersion":"7","continue":"c","remainingItemCount":3},
				"items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{
				 "name":"a","namespace":"default","uid":"u","resourceVersion":"6","generation":2,
				 "creationTimestamp":"2024-01-01T00:00:00Z","labels":{"app":"web"},
				 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r","controller":true,"blockOwnerDeletion":true}],
				 "finalizers":["foregroundDeletion"]}}]}`,
		},
		{
			name: "PartialObjectMetadata without timestamp",
			obj:  &PartialObjectMetadata{ObjectMeta: ObjectMeta{Name: "a"}},
			want: `{"metadata":{"name":"a","creationTimestamp":null}}`,
		},
		{
			name: "Condition",
			obj: &Condition{
				Type: "Available", Status: ConditionTrue, ObservedGeneration: 3,
				LastTransitionTime: created, Reason: "MinimumReplicasAvailable", Message: "ok",
			},
			want: `{"type":"Available","status":"True","observedGeneration":3,"lastTransitionTime":"2024-01-01T00:00:00Z",
				"reason":"MinimumReplicasAvailable","message":"ok"}`,
		},
		{
			name: "TableOptions",
			obj:  &TableOptions{NoHeaders: true, IncludeObject: IncludeMetadata},
			want: `{"includeObject":"Metadata"}`,
		},
		{
			name: "RootPaths",
			obj:  &RootPaths{Paths: []string{"/api", "/apis", "/healthz"}},
			want: `{"paths":["/api","/apis","/healthz"]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tt.want)); err != nil {
				t.Fatalf("bad expected JSON: %v", err)
			}
			got, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("Marshal:\n got %s\nwant %s", got, want.Bytes())
			}
			decoded := reflect.New(reflect.TypeOf(tt.obj).Elem()).Interface()
			if err := json.Unmarshal(want.Bytes(), decoded); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			again, err := json.Marshal(decoded)
			if err != nil {
				t.Fatalf("Marshal decoded: %v", err)
			}
			if !bytes.Equal(again, want.Bytes()) {
				t.Errorf("round trip:\n got %s\nwant %s", again, want.Bytes())
			}
		})
	}
}

func TestDecodeKeepsValues(t *testing.T) {
	var s Status
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"Expired","code":410}`
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	want := Status{TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: StatusFailure, Message: "m", Reason: StatusReasonExpired, Code: 410}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %#v, want %#v", s, want)
	}

	var m PartialObjectMetadata
	if err := json.Unmarshal([]byte(`{"metadata":{"name":"a","creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":"2024-01-01T00:00:30Z","deletionGracePeriodSeconds":30}}`), &m); err != nil {
		t.Fatal(err)
	}
	if !m.CreationTimestamp.Equal(ptr(Unix(1704067200, 0))) || !m.DeletionTimestamp.Equal(ptr(Unix(1704067230, 0))) || *m.DeletionGracePeriodSeconds != 30 {
		t.Errorf("decoded metadata = %+v", m.ObjectMeta)
	}
}

func TestAPIVersionsAndVerbsString(t *testing.T) {
	if got := (APIVersions{Versions: []string{"v1", "v2"}}).String(); got != "v1,v2" {
		t.Errorf("APIVersions.String() = %q", got)
	}
	vs := Verbs{"get", "list"}
	if got := vs.String(); got != "[get list]" {
		t.Errorf("Verbs.String() = %q", got)
	}
	if !vs.Has("list") || vs.Has("watch") {
		t.Errorf("Verbs.Has wrong for %v", vs)
	}
}

func TestTimeQueryParameter(t *testing.T) {
	tm := NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := tm.MarshalQueryParameter()
	if err != nil || s != "2024-01-01T00:00:00Z" {
		t.Fatalf("MarshalQueryParameter() = %q, %v", s, err)
	}
	var back Time
	if err := back.UnmarshalQueryParameter(s); err != nil || !back.Equal(&tm) {
		t.Errorf("UnmarshalQueryParameter(%q) = %v, %v", s, back, err)
	}
	if s, _ := (Time{}).MarshalQueryParameter(); s != "" {
		t.Errorf("zero Time query parameter = %q", s)
	}
	for _, in := range []string{"", "null"} {
		back = tm
		if err := back.UnmarshalQueryParameter(in); err != nil || !back.IsZero() {
			t.Errorf("UnmarshalQueryParameter(%q) = %v, %v; want zero", in, back, err)
		}
	}
	if err := back.UnmarshalQueryParameter("yesterday"); err == nil {
		t.Error("UnmarshalQueryParameter(yesterday) succeeded")
	}
}
