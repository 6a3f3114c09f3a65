package printers

import (
	"reflect"
	"testing"
	"time"

	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// TestEndpointSliceTable checks the columns and cells of endpointslices
// against what Kubernetes prints for the same slices.
func TestEndpointSliceTable(t *testing.T) {
	endpoint := func(addrs ...string) discoveryv1.Endpoint { return discoveryv1.Endpoint{Addresses: addrs} }
	port := func(name string, number *int32) discoveryv1.EndpointPort {
		return discoveryv1.EndpointPort{Name: &name, Port: number}
	}
	tests := []struct {
		name  string
		slice *discoveryv1.EndpointSlice
		want  []any
	}{
		{"placeholder", &discoveryv1.EndpointSlice{ObjectMeta: meta("web-a", time.Minute), AddressType: discoveryv1.AddressTypeIPv4},
			[]any{"web-a", "IPv4", "<unset>", "<unset>", "60s"}},
		{"three addresses", &discoveryv1.EndpointSlice{
			ObjectMeta: meta("web-b", time.Hour), AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{endpoint("10.0.0.1"), endpoint("10.0.0.2"), endpoint("10.0.0.3")},
			Ports:     []discoveryv1.EndpointPort{port("http", ptr(int32(80)))},
		}, []any{"web-b", "IPv4", "80", "10.0.0.1,10.0.0.2,10.0.0.3", "60m"}},
		// Every address counts, however many an endpoint has; a port
		// without a number shows its name, or "*" without a name either.
		{"more", &discoveryv1.EndpointSlice{
			ObjectMeta: meta("db", 2*time.Hour), AddressType: discoveryv1.AddressTypeFQDN,
			Endpoints: []discoveryv1.Endpoint{endpoint("a.example.com", "b.example.com"), endpoint("c.example.com", "d.example.com")},
			Ports:     []discoveryv1.EndpointPort{port("", ptr(int32(5432))), port("any", nil), {}, port("x", ptr(int32(1)))},
		}, []any{"db", "FQDN", "5432,any,* + 1 more...", "a.example.com,b.example.com,c.example.com + 1 more...", "120m"}},
	}
	gr := schema.GroupResource{Group: discoveryv1.GroupName, Resource: "endpointslices"}
	for _, tt := range tests {
		table := convert(t, gr, tt.slice, nil)
		var names []string
		for _, c := range table.ColumnDefinitions {
			names = append(names, c.Name)
		}
		if want := []string{"Name", "AddressType", "Ports", "Endpoints", "Age"}; !reflect.DeepEqual(names, want) {
			t.Fatalf("columns %v, want %v", names, want)
		}
		if got := table.Rows[0].Cells; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: cells %#v, want %#v", tt.name, got, tt.want)
		}
	}
}
