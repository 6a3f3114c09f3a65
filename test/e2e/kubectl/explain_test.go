package kubectl

import (
	"strings"
	"testing"
)

// TestExplain compares explain, read from the server's OpenAPI v3
// documents: resources, field paths through refs, arrays and maps, the
// recursive listing and the errors.
func TestExplain(t *testing.T) {
	t.Parallel()
	var cases [][]string
	for _, path := range []string{
		"pods", "po", "nodes", "pdb", "deployment.spec.strategy", "deploy.spec",
		"deployments.apps.spec.paused", "deployments.v1.apps", "pods.spec.containers",
		"pods.spec.nodeSelector", "pods.metadata.labels", "pods.spec.containers.ports.containerPort",
		"deploy.spec.template.spec.containers.resources.limits", "services.spec",
		"ns.metadata.ownerReferences", "statefulsets.spec.volumeClaimTemplates",
		"clusterroles.rbac.authorization.k8s.io.rules", "pods.", "pods.foo", "pods.spec.foo.bar",
		"pods.spec.containers.name.foo", "podz",
	} {
		cases = append(cases, []string{"explain", path}, []string{"explain", path, "--recursive"})
	}
	cases = append(cases,
		[]string{"explain"},
		[]string{"explain", "pods", "a"},
		[]string{"explain", "pods", "--api-version=apps/v1"},
		[]string{"explain", "deploy", "--api-version=apps/v1", "-o", "plaintext"},
		[]string{"explain", "deploy", "--api-version=v9"},
		[]string{"explain", "pods", "--output=yaml"},
	)
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) { suite.same(t, args...) })
	}
}
