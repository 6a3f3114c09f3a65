package v1

import (
	"testing"

	"kubecore.io/apimachinery/pkg/api/resource"
)

func TestResourceListHelpers(t *testing.T) {
	list := ResourceList{
		ResourceCPU:              resource.MustParse("250m"),
		ResourceMemory:           resource.MustParse("64Mi"),
		ResourceStorage:          resource.MustParse("10Gi"),
		ResourcePods:             resource.MustParse("110"),
		ResourceEphemeralStorage: resource.MustParse("2G"),
	}
	tests := []struct {
		name       string
		get        func(ResourceList) *resource.Quantity
		full, none string
	}{
		{"Cpu", ResourceList.Cpu, "250m", "0"},
		{"Memory", ResourceList.Memory, "64Mi", "0"},
		{"Storage", ResourceList.Storage, "10Gi", "0"},
		{"Pods", ResourceList.Pods, "110", "0"},
		{"StorageEphemeral", ResourceList.StorageEphemeral, "2G", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.get(list).String(); got != tt.full {
				t.Errorf("present: got %s, want %s", got, tt.full)
			}
			for _, empty := range []ResourceList{nil, {}} {
				q := tt.get(empty)
				if q == nil || !q.IsZero() || q.String() != tt.none {
					t.Errorf("absent: got %v, want zero written %s", q, tt.none)
				}
			}
		})
	}
}

func TestResourceListNameDefaultFormat(t *testing.T) {
	tests := []struct {
		get  func(ResourceList) *resource.Quantity
		want resource.Format
	}{
		{ResourceList.Cpu, resource.DecimalSI},
		{ResourceList.Memory, resource.BinarySI},
		{ResourceList.Storage, resource.BinarySI},
		{ResourceList.Pods, resource.DecimalSI},
		{ResourceList.StorageEphemeral, resource.BinarySI},
	}
	for _, tt := range tests {
		if got := tt.get(nil).Format; got != tt.want {
			t.Errorf("format of an absent amount = %q, want %q", got, tt.want)
		}
	}
	// A zero memory amount plus 1Ki stays in the binary notation.
	q := ResourceList(nil).Memory()
	q.Add(resource.MustParse("1Ki"))
	if got := q.String(); got != "1Ki" {
		t.Errorf("0 + 1Ki = %s, want 1Ki", got)
	}
}

func TestResourceListNameReturnsACopy(t *testing.T) {
	list := ResourceList{ResourceCPU: resource.MustParse("1")}
	q := list.Cpu()
	q.Add(resource.MustParse("500m"))
	if got := list[ResourceCPU]; got.String() != "1" {
		t.Errorf("list changed to %s through the returned quantity", got.String())
	}
	if got := q.String(); got != "1500m" {
		t.Errorf("copy = %s, want 1500m", got)
	}
}

func TestResourceNameString(t *testing.T) {
	if got := ResourceEphemeralStorage.String(); got != "ephemeral-storage" {
		t.Errorf("got %q", got)
	}
}
