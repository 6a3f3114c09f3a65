// Package v1 registers the flowcontrol.apiserver.k8s.io/v1 kinds with a
// server's scheme together with their defaults.
package v1

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// The defaults of Kubernetes' v1 API.
const (
	DefaultMatchingPrecedence       int32 = 1000
	DefaultNominalConcurrencyShares int32 = 30
	DefaultQueues                   int32 = 64
	DefaultHandSize                 int32 = 8
	DefaultQueueLengthLimit         int32 = 50
)

// AddToScheme registers the flowcontrol.apiserver.k8s.io/v1 kinds and
// their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := flowcontrolv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsFlowSchema)
	runtime.AddDefaultingFunc(s, SetDefaultsPriorityLevelConfiguration)
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// SetDefaultsFlowSchema: matching precedence 1000.
func SetDefaultsFlowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = DefaultMatchingPrecedence
	}
}

// SetDefaultsPriorityLevelConfiguration: a limited level has 30 shares,
// lends nothing and queues 64 x 8 x 50; an exempt one has no shares.
func SetDefaultsPriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) {
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptrTo(DefaultNominalConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptrTo(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.Queues == 0 {
				q.Queues = DefaultQueues
			}
			if q.HandSize == 0 {
				q.HandSize = DefaultHandSize
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = DefaultQueueLengthLimit
			}
		}
	}
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptrTo(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptrTo(int32(0))
		}
	}
}
