package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestJobsAndCronJobs drives batch/v1 with the stock kubectl against
// `kubecore all-in-one`, whose kubelet runs the pods as processes: create
// job, wait for Complete, logs of the job, the Job and CronJob tables,
// create cronjob, a Job made by hand from the CronJob's template, a Job
// that fails, explain, and a bad schedule refused.
func TestJobsAndCronJobs(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "jobs")
	// Before the cluster stops: the kubelet ends the pods' processes.
	t.Cleanup(func() {
		k.Run(t, "delete", "jobs,cronjobs", "--all", "-n", ns, "--wait", "--timeout=60s")
	})
	eventually(t, 30*time.Second, func() string {
		if r := k.Run(t, "get", "nodes", "-o", "name"); r.ExitCode != 0 || r.Stdout == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})

	k.MustRun(t, "create", "job", "hello", "-n", ns, "--image=busybox", "--", "sh", "-c", "echo hi")
	k.MustRun(t, "wait", "--for=condition=complete", "job/hello", "-n", ns, "--timeout=60s")
	if out := k.MustRun(t, "logs", "job/hello", "-n", ns); out != "hi\n" {
		t.Errorf("kubectl logs job/hello = %q, want \"hi\\n\"", out)
	}
	tb := parseTable(t, k.MustRun(t, "get", "jobs", "-n", ns))
	expectHeader(t, "get jobs", tb, "NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE")
	if row := tb.row(t, "hello"); row["STATUS"] != "Complete" || row["COMPLETIONS"] != "1/1" || row["DURATION"] == "" {
		t.Errorf("job row %v", row)
	}
	wide := parseTable(t, k.MustRun(t, "get", "job", "hello", "-n", ns, "-o", "wide"))
	expectHeader(t, "get job -o wide", wide, "NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR")
	if row := wide.row(t, "hello"); row["CONTAINERS"] != "hello" || row["IMAGES"] != "busybox" || !strings.HasPrefix(row["SELECTOR"], "batch.kubernetes.io/controller-uid=") {
		t.Errorf("wide job row %v", row)
	}
	for _, sel := range []string{"job-name=hello", "batch.kubernetes.io/job-name=hello"} {
		if out := k.MustRun(t, "get", "pods", "-n", ns, "-l", sel, "-o", "name"); !strings.HasPrefix(out, "pod/hello-") || strings.Count(out, "\n") != 1 {
			t.Errorf("pods of -l %s: %q", sel, out)
		}
	}

	k.MustRun(t, "create", "cronjob", "nightly", "-n", ns, "--image=busybox", "--schedule=0 3 * * *", "--", "sh", "-c", "echo from-cron")
	for _, resource := range []string{"cronjobs", "cj"} {
		tb := parseTable(t, k.MustRun(t, "get", resource, "-n", ns))
		expectHeader(t, "get "+resource, tb, "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE")
		if row := tb.row(t, "nightly"); row["SCHEDULE"] != "0 3 * * *" || row["TIMEZONE"] != "<none>" || row["SUSPEND"] != "False" || row["ACTIVE"] != "0" || row["LAST SCHEDULE"] != "<none>" {
			t.Errorf("get %s: cronjob row %v", resource, row)
		}
	}
	k.MustRun(t, "create", "job", "manual", "-n", ns, "--from=cronjob/nightly")
	k.MustRun(t, "wait", "--for=condition=complete", "job/manual", "-n", ns, "--timeout=60s")
	if out := k.MustRun(t, "logs", "job/manual", "-n", ns); out != "from-cron\n" {
		t.Errorf("kubectl logs job/manual = %q", out)
	}
	if got := k.MustRun(t, "get", "job", "manual", "-n", ns, "-o", `jsonpath={.metadata.annotations.cronjob\.kubernetes\.io/instantiate}`); got != "manual" {
		t.Errorf("job made --from=cronjob: instantiate annotation %q", got)
	}
	if got := k.MustRun(t, "get", "job", "manual", "-n", ns, "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}"); got != "CronJob/nightly" {
		t.Errorf("owner of the manual job: %q", got)
	}
	all := k.MustRun(t, "get", "jobs,cronjobs", "-n", ns)
	expectContains(t, "get jobs,cronjobs", all, "job.batch/hello", "job.batch/manual", "cronjob.batch/nightly")

	k.MustRunStdin(t, `apiVersion: batch/v1
kind: Job
metadata:
  name: sad
  namespace: `+ns+`
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 3"]
`, "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=failed", "job/sad", "-n", ns, "--timeout=90s")
	if got := k.MustRun(t, "get", "job", "sad", "-n", ns, "-o", `jsonpath={.status.failed} {.status.conditions[?(@.type=="Failed")].reason}`); got != "2 BackoffLimitExceeded" {
		t.Errorf("failed job status: %q", got)
	}

	// Under restartPolicy OnFailure the kubelet restarts the container in
	// place: the restarts count against the backoff limit.
	k.MustRunStdin(t, `apiVersion: batch/v1
kind: Job
metadata:
  name: flaky
  namespace: `+ns+`
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 1"]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: indexed
  namespace: `+ns+`
spec:
  completions: 2
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo index=$JOB_COMPLETION_INDEX host=$(hostname)"]
`, "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=complete", "job/indexed", "-n", ns, "--timeout=60s")
	if got := k.MustRun(t, "get", "job", "indexed", "-n", ns, "-o", "jsonpath={.status.completedIndexes}"); got != "0,1" {
		t.Errorf("completedIndexes %q", got)
	}
	for _, ix := range []string{"0", "1"} {
		pods := strings.Fields(k.MustRun(t, "get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-completion-index="+ix+",job-name=indexed", "-o", "name"))
		if len(pods) != 1 {
			t.Fatalf("pods of index %s: %v", ix, pods)
		}
		if out := k.MustRun(t, "logs", pods[0], "-n", ns); !strings.HasPrefix(out, "index="+ix+" ") {
			t.Errorf("index %s logged %q", ix, out)
		}
	}
	k.MustRun(t, "wait", "--for=condition=failed", "job/flaky", "-n", ns, "--timeout=90s")
	// Its running pod is stopped and counted as the one failure.
	if got := k.MustRun(t, "get", "job", "flaky", "-n", ns, "-o", `jsonpath={.status.failed}/{.status.conditions[?(@.type=="Failed")].reason}`); got != "1/BackoffLimitExceeded" {
		t.Errorf("flaky job: %q", got)
	}

	describe := k.MustRun(t, "describe", "job", "hello", "-n", ns)
	expectContains(t, "describe job", describe, "Completions:      1", "Pods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed", "SuccessfulCreate", "Completed")
	expectContains(t, "describe cronjob", k.MustRun(t, "describe", "cronjob", "nightly", "-n", ns), "Schedule:", "0 3 * * *", "Concurrency Policy:", "Allow")

	// The default roles: view reads jobs and cronjobs, edit writes them.
	k.MustRun(t, "create", "serviceaccount", "viewer", "-n", ns)
	k.MustRun(t, "create", "serviceaccount", "editor", "-n", ns)
	k.MustRun(t, "create", "rolebinding", "viewer-view", "-n", ns, "--clusterrole=view", "--serviceaccount="+ns+":viewer")
	k.MustRun(t, "create", "rolebinding", "editor-edit", "-n", ns, "--clusterrole=edit", "--serviceaccount="+ns+":editor")
	for _, tc := range []struct{ who, verb, resource, want string }{
		{"viewer", "list", "jobs.batch", "yes"}, {"viewer", "get", "cronjobs.batch", "yes"},
		{"viewer", "create", "jobs.batch", "no"}, {"viewer", "delete", "cronjobs.batch", "no"},
		{"editor", "create", "jobs.batch", "yes"}, {"editor", "patch", "cronjobs.batch", "yes"},
	} {
		eventually(t, 10*time.Second, func() string {
			r := k.Run(t, "auth", "can-i", tc.verb, tc.resource, "-n", ns, "--as=system:serviceaccount:"+ns+":"+tc.who)
			if got := strings.TrimSpace(r.Stdout); got != tc.want {
				return fmt.Sprintf("%s can-i %s %s = %q, want %q", tc.who, tc.verb, tc.resource, got, tc.want)
			}
			return ""
		})
	}

	for _, field := range []string{"job.spec.completions", "cronjob.spec.schedule", "job.status.uncountedTerminatedPods"} {
		if r := k.Run(t, "explain", field); r.ExitCode != 0 || !strings.Contains(r.Stdout, "DESCRIPTION") {
			t.Errorf("explain %s: %s", field, r)
		}
	}
	r := k.Run(t, "create", "cronjob", "bad", "-n", ns, "--image=busybox", "--schedule=61 * * * *")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "spec.schedule") || !strings.Contains(r.Stderr, "minute 61 out of range") {
		t.Errorf("bad schedule: %s", r)
	}
}
