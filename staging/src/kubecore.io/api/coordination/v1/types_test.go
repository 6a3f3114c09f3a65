package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestLeaseEncoding(t *testing.T) {
	holder, dur, transitions := "node-a", int32(40), int32(0)
	renew := metav1.NewMicroTime(time.Date(2025, 3, 14, 10, 5, 12, 87341000, time.UTC))
	strategy := OldestEmulationVersion
	tests := []struct {
		name string
		in   Lease
		want string
	}{
		{"zero", Lease{}, `{"metadata":{"creationTimestamp":null},"spec":{}}`},
		{"node heartbeat", Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "node-a", Namespace: "kube-node-lease"},
			Spec:       LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &renew, LeaseTransitions: &transitions},
		}, `{"metadata":{"name":"node-a","namespace":"kube-node-lease","creationTimestamp":null},` +
			`"spec":{"holderIdentity":"node-a","leaseDurationSeconds":40,"renewTime":"2025-03-14T10:05:12.087341Z","leaseTransitions":0}}`},
		{"coordinated", Lease{Spec: LeaseSpec{Strategy: &strategy, PreferredHolder: &holder}},
			`{"metadata":{"creationTimestamp":null},"spec":{"strategy":"OldestEmulationVersion","preferredHolder":"node-a"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("\n got: %s\nwant: %s", got, tt.want)
			}
			var back Lease
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != tt.want {
				t.Errorf("decode and encode changed the lease:\n got: %s\nwant: %s", again, tt.want)
			}
			if tt.in.Spec.RenewTime != nil && !reflect.DeepEqual(back.Spec.RenewTime.UTC(), tt.in.Spec.RenewTime.UTC()) {
				t.Errorf("renewTime %v, want %v", back.Spec.RenewTime, tt.in.Spec.RenewTime)
			}
		})
	}
}

func TestResource(t *testing.T) {
	if gr := Resource("leases"); gr.Group != "coordination.k8s.io" || gr.Resource != "leases" {
		t.Errorf("Resource(leases) = %+v", gr)
	}
}
