package record

import (
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/typed"
)

// The typed client's Events satisfy EventClient without an adapter.
var _ EventClient = (*typed.Client[*corev1.Event, *corev1.EventList])(nil)
