package apiserver

import (
	"context"
	"net/http"

	"kubecore.io/kubecore/pkg/apirequest"
)

// The response headers that say how API priority and fairness classified
// a request.
const (
	headerFlowSchemaUID    = "X-Kubernetes-PF-FlowSchema-UID"
	headerPriorityLevelUID = "X-Kubernetes-PF-PriorityLevel-UID"
)

// FlowClassifier names the FlowSchema and PriorityLevelConfiguration (by
// UID) a request is classified into; ok is false when none matches.
type FlowClassifier interface {
	Classify(ctx context.Context, user *apirequest.UserInfo, info *apirequest.RequestInfo) (flowSchemaUID, priorityLevelUID string, ok bool)
}

// withFlowClassification sets the X-Kubernetes-PF-* headers of every
// authenticated request, as Kubernetes' API priority and fairness filter
// does after authorization. Requests are not queued here.
func (s *Server) withFlowClassification(h http.Handler) http.Handler {
	c := s.cfg.FlowClassifier
	if c == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := apirequest.RequestInfoFrom(r.Context())
		user, _ := apirequest.UserFrom(r.Context())
		if info != nil && user != nil {
			if fs, pl, ok := c.Classify(r.Context(), user, info); ok {
				w.Header().Set(headerFlowSchemaUID, fs)
				if pl != "" {
					w.Header().Set(headerPriorityLevelUID, pl)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}
