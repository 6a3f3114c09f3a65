package kubectl

import (
	"fmt"
	"testing"
)

// replicaSetRevision is a replica set of deployment web at a revision, as
// the deployment controller would leave it (no controller runs here).
func replicaSetRevision(uid string, rev int, image, cause string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-rev%[2]d
  labels: {app: web, pod-template-hash: h%[2]d}
  annotations:
    deployment.kubernetes.io/revision: "%[2]d"
    kubernetes.io/change-cause: "%[4]s"
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: %[1]s, controller: true}
spec:
  replicas: 0
  selector: {matchLabels: {app: web, pod-template-hash: h%[2]d}}
  template:
    metadata: {labels: {app: web, pod-template-hash: h%[2]d}}
    spec: {containers: [{name: nginx, image: %[3]s}]}
`, uid, rev, image, cause)
}

func TestRolloutHistoryUndo(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx:2")
		suite.mustRun(t, "", "create", "deployment", "bare", "-n", ns, "--image=nginx")
		suite.mustRun(t, "", "annotate", "deploy", "web", "-n", ns, "deployment.kubernetes.io/revision=2")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns)
		uid := suite.mustRun(t, "", "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.metadata.uid}")
		suite.mustRun(t, replicaSetRevision(uid, 1, "nginx:1", ""), "apply", "-n", ns, "-f", "-")
		suite.mustRun(t, replicaSetRevision(uid, 2, "nginx:2", "set image to 2"), "apply", "-n", ns, "-f", "-")
	}
	template := cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template}{.metadata.annotations}")
	suite.pair(t, setup,
		cmd("rollout", "history", "deploy/web", "-n", "NS"),
		cmd("rollout", "history", "deployment", "web", "bare", "-n", "NS"),
		cmd("rollout", "history", "deploy/web", "-n", "NS", "--revision=2"),
		cmd("rollout", "history", "deploy/web", "-n", "NS", "--revision=9"),
		cmd("rollout", "history", "cm/conf", "-n", "NS"),
		cmd("rollout", "undo", "deploy/bare", "-n", "NS"),
		cmd("rollout", "undo", "deploy/web", "-n", "NS", "--to-revision=2"),
		cmd("rollout", "undo", "deploy/web", "-n", "NS", "--to-revision=7"),
		cmd("rollout", "undo", "cm/conf", "-n", "NS"),
		cmd("rollout", "undo", "deploy/web", "-n", "NS", "--dry-run=client"),
		template,
		cmd("rollout", "undo", "deploy/web", "-n", "NS"),
		template,
		cmd("rollout", "undo", "deploy/web", "-n", "NS", "--to-revision=1"),
		cmd("rollout", "pause", "deploy/web", "-n", "NS"),
		cmd("rollout", "undo", "deploy/web", "-n", "NS", "--to-revision=2"),
	)
}
