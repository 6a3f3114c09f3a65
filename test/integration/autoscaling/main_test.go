// Package autoscaling tests the autoscaling group: HorizontalPodAutoscalers
// stored as autoscaling/v2 and served as v1 by conversion.
package autoscaling

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
