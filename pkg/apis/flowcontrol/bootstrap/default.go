// Package bootstrap holds the API priority and fairness configuration
// every Kubernetes API server keeps: the mandatory FlowSchemas and
// PriorityLevelConfigurations (exempt, catch-all), which are always
// restored to these specs, and the suggested ones, which are restored
// while marked apf.kubernetes.io/autoupdate-spec: "true".
package bootstrap

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// The users and groups the configuration names.
const (
	mastersGroup         = "system:masters"
	nodesGroup           = "system:nodes"
	authenticatedGroup   = "system:authenticated"
	unauthenticatedGroup = "system:unauthenticated"
	serviceAccountsGroup = "system:serviceaccounts"
	controllerManager    = "system:kube-controller-manager"
	scheduler            = "system:kube-scheduler"
)

func ptrTo[T any](v T) *T { return &v }

// MandatoryPriorityLevelConfigurations are exempt and catch-all.
func MandatoryPriorityLevelConfigurations() []*flowcontrolv1.PriorityLevelConfiguration {
	return []*flowcontrolv1.PriorityLevelConfiguration{
		priorityLevel(flowcontrolv1.PriorityLevelConfigurationNameExempt, flowcontrolv1.PriorityLevelConfigurationSpec{
			Type:   flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptrTo(int32(0)), LendablePercent: ptrTo(int32(0))},
		}),
		priorityLevel(flowcontrolv1.PriorityLevelConfigurationNameCatchAll, flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptrTo(int32(5)), LendablePercent: ptrTo(int32(0)),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}},
		}),
	}
}

// SuggestedPriorityLevelConfigurations are the levels of the suggested
// FlowSchemas.
func SuggestedPriorityLevelConfigurations() []*flowcontrolv1.PriorityLevelConfiguration {
	return []*flowcontrolv1.PriorityLevelConfiguration{
		queued("system", 30, 33, 64, 6, 50),
		queued("node-high", 40, 25, 64, 6, 50),
		queued("leader-election", 10, 0, 16, 4, 50),
		queued("workload-high", 40, 50, 128, 6, 50),
		queued("workload-low", 100, 90, 128, 6, 50),
		queued("global-default", 20, 50, 128, 6, 50),
	}
}

// MandatoryFlowSchemas are exempt (system:masters, never limited) and
// catch-all (everyone else, last).
func MandatoryFlowSchemas() []*flowcontrolv1.FlowSchema {
	return []*flowcontrolv1.FlowSchema{
		flowSchema(flowcontrolv1.FlowSchemaNameExempt, flowcontrolv1.PriorityLevelConfigurationNameExempt, 1, "",
			everything(groups(mastersGroup))),
		flowSchema(flowcontrolv1.FlowSchemaNameCatchAll, flowcontrolv1.PriorityLevelConfigurationNameCatchAll, 10000, flowcontrolv1.FlowDistinguisherMethodByUserType,
			everything(groups(unauthenticatedGroup, authenticatedGroup))),
	}
}

// SuggestedFlowSchemas are the schemas Kubernetes suggests, in order of
// matching precedence.
func SuggestedFlowSchemas() []*flowcontrolv1.FlowSchema {
	byUser, byNamespace := flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.FlowDistinguisherMethodByNamespaceType
	leaderElection := []string{"get", "create", "update"}
	return []*flowcontrolv1.FlowSchema{
		flowSchema("probes", flowcontrolv1.PriorityLevelConfigurationNameExempt, 2, "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:         groups(unauthenticatedGroup, authenticatedGroup),
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}},
		}),
		flowSchema("system-leader-election", "leader-election", 100, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      append(users(controllerManager, scheduler), kubeSystemServiceAccounts(flowcontrolv1.NameAll)...),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{namespaced(leaderElection, "coordination.k8s.io", "leases")},
		}),
		flowSchema("system-node-high", "node-high", 400, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: groups(nodesGroup),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				{Verbs: []string{flowcontrolv1.VerbAll}, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, ClusterScope: true, Namespaces: []string{flowcontrolv1.NamespaceEvery}},
				namespaced([]string{flowcontrolv1.VerbAll}, "coordination.k8s.io", "leases"),
			},
		}),
		flowSchema("system-nodes", "system", 500, byUser, everything(groups(nodesGroup))),
		flowSchema("kube-controller-manager", "workload-high", 800, byNamespace, everything(users(controllerManager))),
		flowSchema("kube-scheduler", "workload-high", 800, byNamespace, everything(users(scheduler))),
		flowSchema("kube-system-service-accounts", "workload-high", 900, byNamespace, everything(kubeSystemServiceAccounts(flowcontrolv1.NameAll))),
		flowSchema("service-accounts", "workload-low", 9000, byUser, everything(groups(serviceAccountsGroup))),
		flowSchema("global-default", "global-default", 9900, byUser, everything(groups(unauthenticatedGroup, authenticatedGroup))),
	}
}

// meta is the metadata of a bootstrap object: marked for auto-update.
func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Annotations: map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"}}
}

func priorityLevel(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: meta(name), Spec: spec}
}

// queued is a Limited level that queues what exceeds its share.
func queued(name string, shares, lendable, queues, handSize, queueLength int32) *flowcontrolv1.PriorityLevelConfiguration {
	return priorityLevel(name, flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptrTo(shares), LendablePercent: ptrTo(lendable),
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
				Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: queueLength}},
		},
	})
}

func flowSchema(name, level string, precedence int32, method flowcontrolv1.FlowDistinguisherMethodType, rules flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: meta(name), Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
		MatchingPrecedence:         precedence,
		Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{rules},
	}}
	if method != "" {
		fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: method}
	}
	return fs
}

// everything matches every request of subjects.
func everything(subjects []flowcontrolv1.Subject) flowcontrolv1.PolicyRulesWithSubjects {
	return flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: subjects,
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{flowcontrolv1.VerbAll}, APIGroups: []string{flowcontrolv1.APIGroupAll},
			Resources: []string{flowcontrolv1.ResourceAll}, ClusterScope: true, Namespaces: []string{flowcontrolv1.NamespaceEvery}}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{flowcontrolv1.VerbAll}, NonResourceURLs: []string{flowcontrolv1.NonResourceAll}}},
	}
}

// namespaced matches verbs on resources of group in every namespace.
func namespaced(verbs []string, group string, resources ...string) flowcontrolv1.ResourcePolicyRule {
	return flowcontrolv1.ResourcePolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources, Namespaces: []string{flowcontrolv1.NamespaceEvery}}
}

func groups(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}}
	}
	return out
}

func users(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: n}}
	}
	return out
}

func kubeSystemServiceAccounts(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount,
			ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: metav1.NamespaceSystem, Name: n}}
	}
	return out
}
