package printers

import (
	"fmt"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func apiServiceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Service", "string", "The reference to the service that hosts this API endpoint."),
		column("Available", "string", "Whether this service is available."),
		ageColumn(),
	}
}

// printAPIService: SERVICE is Local or namespace/name; AVAILABLE the
// Available condition's status, with its reason unless True.
func printAPIService(c *printContext, a *apiregistrationv1.APIService) (row, error) {
	service := "Local"
	if s := a.Spec.Service; s != nil {
		service = s.Namespace + "/" + s.Name
	}
	available := string(apiregistrationv1.ConditionUnknown)
	for _, cond := range a.Status.Conditions {
		if cond.Type != apiregistrationv1.Available {
			continue
		}
		available = string(cond.Status)
		if cond.Status != apiregistrationv1.ConditionTrue && cond.Reason != "" {
			available = fmt.Sprintf("%s (%s)", cond.Status, cond.Reason)
		}
	}
	return row{cells: []any{a.Name, service, available, c.age(a.CreationTimestamp)}}, nil
}
