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

// controllerRevision is a revision of statefulset db, as the statefulset
// controller would write it (no controller runs here).
func controllerRevision(uid string, rev int, image, cause string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: db-rev%[2]d
  labels: {app: db}
  annotations: {kubernetes.io/change-cause: "%[4]s"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: StatefulSet, name: db, uid: %[1]s, controller: true}
revision: %[2]d
data:
  spec:
    template:
      $patch: replace
      metadata: {labels: {app: db}}
      spec: {containers: [{name: c, image: %[3]s, command: [sh, -c, sleep 3600]}]}
`, uid, rev, image, cause)
}

func TestRolloutHistoryUndoStatefulSet(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		for _, name := range []string{"db", "bare"} {
			suite.mustRun(t, fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: %s}
spec:
  serviceName: db
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec: {containers: [{name: c, image: "busybox:3", command: [sh, -c, sleep 3600]}]}
`, name), "apply", "-n", ns, "-f", "-")
		}
		uid := suite.mustRun(t, "", "get", "sts", "db", "-n", ns, "-o", "jsonpath={.metadata.uid}")
		suite.mustRun(t, controllerRevision(uid, 1, "busybox:1", ""), "apply", "-n", ns, "-f", "-")
		suite.mustRun(t, controllerRevision(uid, 2, "busybox:2", "set image to 2"), "apply", "-n", ns, "-f", "-")
		suite.mustRun(t, controllerRevision(uid, 3, "busybox:3", ""), "apply", "-n", ns, "-f", "-")
		suite.mustRun(t, controllerRevision("not-"+uid, 4, "busybox:4", ""), "apply", "-n", ns, "-f", "-")
	}
	template := cmd("get", "sts", "db", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	suite.pair(t, setup,
		cmd("rollout", "history", "sts/db", "-n", "NS"),
		cmd("rollout", "history", "statefulset", "db", "bare", "-n", "NS"),
		cmd("rollout", "history", "sts/db", "-n", "NS", "--revision=2"),
		cmd("rollout", "history", "sts/db", "-n", "NS", "--revision=4"),
		cmd("rollout", "undo", "sts/bare", "-n", "NS"),
		cmd("rollout", "undo", "sts/db", "-n", "NS", "--to-revision=3"),
		cmd("rollout", "undo", "sts/db", "-n", "NS", "--to-revision=7"),
		cmd("rollout", "undo", "sts/db", "-n", "NS", "--dry-run=client"),
		cmd("rollout", "undo", "sts/db", "-n", "NS", "--dry-run=server"),
		template,
		cmd("rollout", "undo", "sts/db", "-n", "NS"),
		template,
		cmd("rollout", "undo", "sts/db", "deploy/nope", "-n", "NS", "--to-revision=1"),
		template,
	)
}

// TestRolloutStatusStatefulSetDaemonSet follows the status of a
// StatefulSet and a DaemonSet, written by hand (no controller runs), and
// the verbs that do not apply to them.
func TestRolloutStatusStatefulSetDaemonSet(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ondelete}
spec:
  serviceName: db
  updateStrategy: {type: OnDelete}
  selector: {matchLabels: {app: od}}
  template:
    metadata: {labels: {app: od}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c, image: busybox}]}
`, "apply", "-n", ns, "-f", "-")
	}
	status := func(kind, s string) step {
		return cmd("patch", kind, "-n", "NS", "--subresource=status", "--type=merge", "-p", s)
	}
	suite.pair(t, setup,
		cmd("rollout", "status", "sts/db", "-n", "NS", "--watch=false"),
		status("sts/db", `{"status":{"observedGeneration":1,"replicas":3,"readyReplicas":1}}`),
		cmd("rollout", "status", "sts/db", "-n", "NS", "--watch=false"),
		status("sts/db", `{"status":{"readyReplicas":3,"updatedReplicas":1}}`),
		cmd("rollout", "status", "sts/db", "-n", "NS", "--watch=false"),
		status("sts/db", `{"status":{"updatedReplicas":3}}`),
		cmd("rollout", "status", "sts/db", "-n", "NS"),
		cmd("rollout", "status", "sts/ondelete", "-n", "NS"),
		cmd("rollout", "status", "ds/ds", "-n", "NS", "--watch=false"),
		status("ds/ds", `{"status":{"observedGeneration":1,"desiredNumberScheduled":2,"updatedNumberScheduled":1,"currentNumberScheduled":2,"numberMisscheduled":0,"numberReady":0}}`),
		cmd("rollout", "status", "ds/ds", "-n", "NS", "--watch=false"),
		status("ds/ds", `{"status":{"updatedNumberScheduled":2,"numberAvailable":1}}`),
		cmd("rollout", "status", "ds/ds", "-n", "NS", "--watch=false"),
		status("ds/ds", `{"status":{"numberAvailable":2}}`),
		cmd("rollout", "status", "ds/ds", "-n", "NS"),
		cmd("rollout", "pause", "sts/db", "-n", "NS"),
		cmd("rollout", "resume", "ds/ds", "-n", "NS"),
		cmd("rollout", "history", "ds/ds", "-n", "NS"),
		cmd("rollout", "undo", "ds/ds", "-n", "NS"),
		cmd("rollout", "restart", "ds/ds", "sts/db", "-n", "NS"),
	)
}
