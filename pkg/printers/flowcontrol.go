package printers

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func flowSchemaColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("PriorityLevel", "string", "The priority level the matched requests are assigned to."),
		column("MatchingPrecedence", "string", "The schemas are tried in increasing order of this number."),
		column("DistinguisherMethod", "string", "How the matched requests are split into flows."),
		ageColumn(),
		column("MissingPL", "string", "Whether the priority level the schema names is missing."),
	}
}

func printFlowSchema(c *printContext, fs *flowcontrolv1.FlowSchema) (row, error) {
	method := "<none>"
	if d := fs.Spec.DistinguisherMethod; d != nil {
		method = string(d.Type)
	}
	missing := "?"
	for _, cond := range fs.Status.Conditions {
		if cond.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(cond.Status)
			break
		}
	}
	return row{cells: []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), method, c.age(fs.CreationTimestamp), missing}}, nil
}

func priorityLevelColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Type", "string", "Exempt or Limited."),
		column("NominalConcurrencyShares", "string", "The level's share of the server's concurrency."),
		column("Queues", "string", "The number of queues of a queuing level."),
		column("HandSize", "string", "The number of queues a flow may be put in."),
		column("QueueLengthLimit", "string", "The number of requests a queue holds."),
		ageColumn(),
	}
}

func printPriorityLevel(c *printContext, pl *flowcontrolv1.PriorityLevelConfiguration) (row, error) {
	var shares, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares != nil {
			shares = int64(*l.NominalConcurrencyShares)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLength = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
		}
	}
	return row{cells: []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLength, c.age(pl.CreationTimestamp)}}, nil
}
