package printers

import (
	"strings"
	"time"

	resourcev1 "kubecore.io/api/resource/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// resourceTableConvertor returns the printers of the resource.k8s.io
// group's resources, nil for other resources.
func resourceTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	kind := resourcev1.SchemeGroupVersion.WithKind
	switch gr {
	case resourcev1.Resource("deviceclasses"):
		return newPrinter(now, kind("DeviceClass"), []metav1.TableColumnDefinition{nameColumn(), ageColumn()},
			func(c *printContext, o *resourcev1.DeviceClass) (row, error) {
				return row{cells: []any{o.Name, c.age(o.CreationTimestamp)}}, nil
			}, func(l *resourcev1.DeviceClassList) []resourcev1.DeviceClass { return l.Items })
	case resourcev1.Resource("resourceclaims"):
		return newPrinter(now, kind("ResourceClaim"), []metav1.TableColumnDefinition{
			nameColumn(),
			column("State", "string", "A summary of the current state (allocated, pending, reserved, etc.)."),
			ageColumn(),
		}, printResourceClaim, func(l *resourcev1.ResourceClaimList) []resourcev1.ResourceClaim { return l.Items })
	case resourcev1.Resource("resourceclaimtemplates"):
		return newPrinter(now, kind("ResourceClaimTemplate"), []metav1.TableColumnDefinition{nameColumn(), ageColumn()},
			func(c *printContext, o *resourcev1.ResourceClaimTemplate) (row, error) {
				return row{cells: []any{o.Name, c.age(o.CreationTimestamp)}}, nil
			}, func(l *resourcev1.ResourceClaimTemplateList) []resourcev1.ResourceClaimTemplate { return l.Items })
	case resourcev1.Resource("resourceslices"):
		return newPrinter(now, kind("ResourceSlice"), []metav1.TableColumnDefinition{
			nameColumn(),
			column("Node", "string", "The node providing the resources, if the resources are local to a node."),
			column("Driver", "string", "The name of the DRA driver providing the resources."),
			column("Pool", "string", "The name of the pool the resources belong to."),
			ageColumn(),
		}, printResourceSlice, func(l *resourcev1.ResourceSliceList) []resourcev1.ResourceSlice { return l.Items })
	}
	return nil
}

// printResourceClaim summarizes the claim's state as kubectl does:
// deleted, pending or allocated, and reserved.
func printResourceClaim(c *printContext, o *resourcev1.ResourceClaim) (row, error) {
	var states []string
	if o.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case o.Status.Allocation != nil:
		states = append(states, "allocated")
	case o.DeletionTimestamp == nil:
		states = append(states, "pending")
	}
	if len(o.Status.ReservedFor) > 0 {
		states = append(states, "reserved")
	}
	return row{cells: []any{o.Name, strings.Join(states, ","), c.age(o.CreationTimestamp)}}, nil
}

func printResourceSlice(c *printContext, o *resourcev1.ResourceSlice) (row, error) {
	node := ""
	if o.Spec.NodeName != nil {
		node = *o.Spec.NodeName
	}
	return row{cells: []any{o.Name, node, o.Spec.Driver, o.Spec.Pool.Name, c.age(o.CreationTimestamp)}}, nil
}
