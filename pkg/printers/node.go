package printers

import (
	"time"

	nodev1 "kubecore.io/api/node/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// nodeTableConvertor returns the printers of node.k8s.io.
func nodeTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	if gr == nodev1.Resource("runtimeclasses") {
		return newPrinter(now, nodev1.SchemeGroupVersion.WithKind("RuntimeClass"), runtimeClassColumns(), printRuntimeClass, func(l *nodev1.RuntimeClassList) []nodev1.RuntimeClass { return l.Items })
	}
	return nil
}

func runtimeClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Handler", "string", "The runtime handler the class's pods run under."),
		ageColumn(),
	}
}

func printRuntimeClass(c *printContext, rc *nodev1.RuntimeClass) (row, error) {
	return row{cells: []any{rc.Name, rc.Handler, c.age(rc.CreationTimestamp)}}, nil
}
