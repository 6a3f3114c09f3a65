package apiserver

import (
	"context"
	"net/http"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apiserver/flowcontrol"
)

// The response headers that say how API priority and fairness classified
// a request.
const (
	headerFlowSchemaUID    = "X-Kubernetes-PF-FlowSchema-UID"
	headerPriorityLevelUID = "X-Kubernetes-PF-PriorityLevel-UID"
)

// FlowConfigSource delivers the API priority and fairness configuration.
type FlowConfigSource interface {
	// RunFlowConfig calls apply with every FlowSchema and
	// PriorityLevelConfiguration once they are known and again after
	// each change, until ctx ends. apply keeps the objects and only
	// reads them.
	RunFlowConfig(ctx context.Context, apply func([]*flowcontrolv1.FlowSchema, []*flowcontrolv1.PriorityLevelConfiguration)) error
}

// newFlowControl returns the server's priority and fairness, nil without
// a configuration source.
func (c *completedConfig) newFlowControl() *flowcontrol.Controller {
	if c.FlowConfig == nil {
		return nil
	}
	return flowcontrol.New(flowcontrol.Options{
		Seats:     c.MaxRequestsInFlight + c.MaxMutatingRequestsInFlight,
		QueueWait: c.FlowQueueWait,
	})
}

// withPriorityAndFairness classifies every authenticated request by the
// FlowSchemas, names the schema and priority level in the
// X-Kubernetes-PF-* headers, and serves it when its level gives it a
// seat: at once, after waiting in a queue, or never (429 Too Many
// Requests with Retry-After). It runs after authorization, as in
// Kubernetes. Until the configuration is known requests are served.
func (s *Server) withPriorityAndFairness(h http.Handler) http.Handler {
	fc := s.flow
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := apirequest.RequestInfoFrom(r.Context())
		user, _ := apirequest.UserFrom(r.Context())
		if info == nil || user == nil {
			h.ServeHTTP(w, r)
			return
		}
		cl := fc.Classify(user, info)
		if cl == nil {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set(headerFlowSchemaUID, string(cl.FlowSchema.UID))
		w.Header().Set(headerPriorityLevelUID, string(cl.PriorityLevel.UID))
		if isLongRunning(info) {
			h.ServeHTTP(w, r)
			return
		}
		if p := cl.StoragePriority(); p != apirequest.PriorityNormal {
			r = r.WithContext(apirequest.WithPriority(r.Context(), p))
		}
		release, rejected := fc.Admit(r.Context(), cl)
		if rejected != nil {
			writeError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}
