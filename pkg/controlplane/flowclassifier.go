package controlplane

import (
	"context"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/flowcontrol/match"
	"kubecore.io/kubecore/pkg/apiserver"
)

// flowClassifier classifies requests by the stored FlowSchemas, read from
// the watch cache, as API priority and fairness does; it does not queue.
type flowClassifier struct {
	schemas cached[*flowcontrolv1.FlowSchema]
	levels  cached[*flowcontrolv1.PriorityLevelConfiguration]
}

var _ apiserver.FlowClassifier = flowClassifier{}

// FlowClassifier returns the classifier of requests by FlowSchema.
func (in *Instance) FlowClassifier() apiserver.FlowClassifier {
	return flowClassifier{schemas: cached[*flowcontrolv1.FlowSchema]{in.flowSchemas}, levels: cached[*flowcontrolv1.PriorityLevelConfiguration]{in.priorityLevels}}
}

// Classify implements apiserver.FlowClassifier.
func (c flowClassifier) Classify(ctx context.Context, user *apirequest.UserInfo, info *apirequest.RequestInfo) (string, string, bool) {
	schemas, err := c.schemas.list(ctx, "", nil)
	if err != nil {
		return "", "", false
	}
	fs := match.Classify(schemas, user, info)
	if fs == nil {
		return "", "", false
	}
	pl, err := c.levels.get(ctx, "", fs.Spec.PriorityLevelConfiguration.Name, false)
	if err != nil || pl == nil {
		return string(fs.UID), "", true
	}
	return string(fs.UID), string(pl.UID), true
}
