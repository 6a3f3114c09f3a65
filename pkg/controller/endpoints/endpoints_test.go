package endpoints

import (
	"reflect"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

func pod(name, ip string, ready bool, ports ...corev1.ContainerPort) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Ports: ports}}},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			PodIP:      ip,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}},
		},
	}
}

func addr(name, ip string) corev1.EndpointAddress {
	node := "n1"
	return corev1.EndpointAddress{IP: ip, NodeName: &node, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

func TestSubsets(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("web")},
			{Name: "metrics", Port: 9000, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9100)},
		}},
	}
	webPort := corev1.ContainerPort{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}
	otherPort := corev1.ContainerPort{Name: "web", ContainerPort: 8081, Protocol: corev1.ProtocolTCP}
	gone := pod("gone", "10.0.0.9", true, webPort)
	now := metav1.Now()
	gone.DeletionTimestamp = &now
	finished := pod("done", "10.0.0.8", false, webPort)
	finished.Status.Phase = corev1.PodSucceeded
	pods := []*corev1.Pod{
		pod("b", "10.0.0.2", true, webPort),
		pod("a", "10.0.0.1", true, webPort),
		pod("c", "10.0.0.3", false, webPort),
		pod("d", "10.0.0.4", true, otherPort),
		pod("noip", "", true, webPort),
		pod("unnamed", "10.0.0.5", true), // only the numeric target resolves
		gone, finished,
	}
	got := subsets(svc, pods)
	want := []corev1.EndpointSubset{
		{
			Addresses:         []corev1.EndpointAddress{addr("a", "10.0.0.1"), addr("b", "10.0.0.2")},
			NotReadyAddresses: []corev1.EndpointAddress{addr("c", "10.0.0.3")},
			Ports: []corev1.EndpointPort{
				{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP},
			},
		},
		{
			Addresses: []corev1.EndpointAddress{addr("d", "10.0.0.4")},
			Ports: []corev1.EndpointPort{
				{Name: "http", Port: 8081, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP},
			},
		},
		{
			Addresses: []corev1.EndpointAddress{addr("unnamed", "10.0.0.5")},
			Ports:     []corev1.EndpointPort{{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subsets:\n got %+v\nwant %+v", got, want)
	}

	// Published not-ready addresses count as ready.
	svc.Spec.PublishNotReadyAddresses = true
	got = subsets(svc, []*corev1.Pod{pod("c", "10.0.0.3", false, webPort)})
	if len(got) != 1 || len(got[0].Addresses) != 1 || len(got[0].NotReadyAddresses) != 0 {
		t.Errorf("publishNotReadyAddresses: %+v", got)
	}
}
