package v1

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
)

// TestZeroValueEncoding pins which fields Kubernetes always writes and which
// it omits when empty: the zero value of each struct must encode exactly as
// Kubernetes' own types encode it.
func TestZeroValueEncoding(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"DeploymentSpec", DeploymentSpec{}, `{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"strategy":{}}`},
		{"DeploymentStatus", DeploymentStatus{}, `{}`},
		{"DeploymentCondition", DeploymentCondition{}, `{"type":"","status":"","lastUpdateTime":null,"lastTransitionTime":null}`},
		{"RollingUpdateDeployment", RollingUpdateDeployment{}, `{}`},
		{"ReplicaSetSpec", ReplicaSetSpec{}, `{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}}`},
		{"ReplicaSetStatus", ReplicaSetStatus{}, `{"replicas":0}`},
		{"ReplicaSetCondition", ReplicaSetCondition{}, `{"type":"","status":"","lastTransitionTime":null}`},
		{"StatefulSetSpec", StatefulSetSpec{}, `{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"serviceName":"","updateStrategy":{}}`},
		{"StatefulSetStatus", StatefulSetStatus{}, `{"replicas":0,"availableReplicas":0}`},
		{"StatefulSetOrdinals", StatefulSetOrdinals{}, `{"start":0}`},
		{"StatefulSetPersistentVolumeClaimRetentionPolicy", StatefulSetPersistentVolumeClaimRetentionPolicy{}, `{}`},
		{"RollingUpdateStatefulSetStrategy", RollingUpdateStatefulSetStrategy{}, `{}`},
		{"DaemonSetSpec", DaemonSetSpec{}, `{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"updateStrategy":{}}`},
		{"DaemonSetStatus", DaemonSetStatus{}, `{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}`},
		// RawExtension is a struct: omitempty cannot drop it, and Kubernetes writes null.
		{"ControllerRevision", ControllerRevision{}, `{"metadata":{"creationTimestamp":null},"data":null,"revision":0}`},
		{"ControllerRevision with data", ControllerRevision{Data: runtime.RawExtension{Raw: []byte(`{"spec":{"replicas":2}}`)}, Revision: 7}, `{"metadata":{"creationTimestamp":null},"data":{"spec":{"replicas":2}},"revision":7}`},
		{"DeploymentList", DeploymentList{}, `{"metadata":{},"items":null}`},
		{"StatefulSetList", StatefulSetList{}, `{"metadata":{},"items":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%s{})\n got: %s\nwant: %s", tt.name, got, tt.want)
			}
		})
	}
}

// TestFieldOrder checks that objects encode their fields in Kubernetes'
// order, so that encoded objects match the API server's byte for byte.
func TestFieldOrder(t *testing.T) {
	one := int32(1)
	d := Deployment{Spec: DeploymentSpec{Replicas: &one, MinReadySeconds: 2, Paused: true}}
	d.Kind, d.APIVersion, d.Name = "Deployment", "apps/v1", "web"
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","creationTimestamp":null},` +
		`"spec":{"replicas":1,"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},` +
		`"strategy":{},"minReadySeconds":2,"paused":true},"status":{}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestPatchTags checks the strategic-merge-patch tags the patch code reads.
func TestPatchTags(t *testing.T) {
	tests := []struct {
		typ      any
		field    string
		strategy string
		mergeKey string
	}{
		{DeploymentSpec{}, "Strategy", "retainKeys", ""},
		{DeploymentStatus{}, "Conditions", "merge", "type"},
		{ReplicaSetStatus{}, "Conditions", "merge", "type"},
		{StatefulSetStatus{}, "Conditions", "merge", "type"},
		{DaemonSetStatus{}, "Conditions", "merge", "type"},
		{StatefulSetSpec{}, "VolumeClaimTemplates", "", ""},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.typ)
		f, ok := typ.FieldByName(tt.field)
		if !ok {
			t.Errorf("%s has no field %s", typ.Name(), tt.field)
			continue
		}
		if got := f.Tag.Get("patchStrategy"); got != tt.strategy {
			t.Errorf("%s.%s patchStrategy = %q, want %q", typ.Name(), tt.field, got, tt.strategy)
		}
		if got := f.Tag.Get("patchMergeKey"); got != tt.mergeKey {
			t.Errorf("%s.%s patchMergeKey = %q, want %q", typ.Name(), tt.field, got, tt.mergeKey)
		}
	}
}

func TestResource(t *testing.T) {
	gr := Resource("deployments")
	if gr.Group != "apps" || gr.Resource != "deployments" {
		t.Errorf("Resource(deployments) = %+v", gr)
	}
}
