package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestAuthWhoami: the stock kubectl's `auth whoami` (a SelfSubjectReview)
// prints the admin's user and groups, in a table and as YAML.
func TestAuthWhoami(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	out := k.MustRun(t, "auth", "whoami")
	tb := parseTable(t, out)
	expectHeader(t, "auth whoami", tb, "ATTRIBUTE", "VALUE")
	if !regexp.MustCompile(`(?m)^Username\s+\S+$`).MatchString(out) || !regexp.MustCompile(`(?m)^Groups\s+\[.*system:masters.*system:authenticated\]$`).MatchString(out) {
		t.Errorf("auth whoami printed:\n%s", out)
	}
	y := decodeYAML(t, k.MustRun(t, "auth", "whoami", "-o", "yaml"))
	if y.str("apiVersion") != "authentication.k8s.io/v1" || y.str("kind") != "SelfSubjectReview" || y.str("status.userInfo.username") == "" {
		t.Errorf("auth whoami -o yaml: %v", y)
	}
}

// TestAPIServicesAndFlowControlTables: the stock kubectl prints the local
// APIServices and the bootstrap APF configuration with Kubernetes'
// columns.
func TestAPIServicesAndFlowControlTables(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	tb := parseTable(t, k.MustRun(t, "get", "apiservices"))
	expectHeader(t, "get apiservices", tb, "NAME", "SERVICE", "AVAILABLE", "AGE")
	for _, name := range []string{"v1.", "v1.apps", "v1.authentication.k8s.io", "v1.admissionregistration.k8s.io", "v1.flowcontrol.apiserver.k8s.io"} {
		if r := tb.row(t, name); r["SERVICE"] != "Local" || r["AVAILABLE"] != "True" {
			t.Errorf("apiservice %s: %v", name, r)
		}
	}

	tb = parseTable(t, k.MustRun(t, "get", "flowschemas"))
	expectHeader(t, "get flowschemas", tb, "NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE", "MISSINGPL")
	for name, want := range map[string][3]string{
		"exempt": {"exempt", "1", "<none>"}, "probes": {"exempt", "2", "<none>"}, "system-leader-election": {"leader-election", "100", "ByUser"},
		"kube-scheduler": {"workload-high", "800", "ByNamespace"}, "global-default": {"global-default", "9900", "ByUser"}, "catch-all": {"catch-all", "10000", "ByUser"},
	} {
		r := tb.row(t, name)
		if r["PRIORITYLEVEL"] != want[0] || r["MATCHINGPRECEDENCE"] != want[1] || r["DISTINGUISHERMETHOD"] != want[2] || r["MISSINGPL"] != "False" {
			t.Errorf("flowschema %s: %v, want %v", name, r, want)
		}
	}

	tb = parseTable(t, k.MustRun(t, "get", "prioritylevelconfigurations"))
	expectHeader(t, "get prioritylevelconfigurations", tb, "NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT", "AGE")
	for name, want := range map[string][5]string{
		"exempt":          {"Exempt", "<none>", "<none>", "<none>", "<none>"},
		"catch-all":       {"Limited", "5", "<none>", "<none>", "<none>"},
		"workload-low":    {"Limited", "100", "128", "6", "50"},
		"node-high":       {"Limited", "40", "64", "6", "50"},
		"leader-election": {"Limited", "10", "16", "4", "50"},
	} {
		r := tb.row(t, name)
		got := [5]string{r["TYPE"], r["NOMINALCONCURRENCYSHARES"], r["QUEUES"], r["HANDSIZE"], r["QUEUELENGTHLIMIT"]}
		if got != want {
			t.Errorf("prioritylevelconfiguration %s: %v, want %v", name, got, want)
		}
	}
}

// admissionManifests are one object of each admissionregistration kind,
// by resource.
func admissionManifests(suffix string) map[string]string {
	hook := func(kind string, extra string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: ` + kind + `
metadata:
  name: e2e-` + suffix + `
webhooks:
- name: pods.e2e.example.com
  clientConfig:
    service: {namespace: default, name: hook, path: /check}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  # The webhook is called now: select no pod of the tests beside this one.
  objectSelector: {matchLabels: {e2e-webhook: never}}
  sideEffects: None
  admissionReviewVersions: [v1]
` + extra
	}
	match := `  matchConstraints:
    resourceRules:
    - operations: [CREATE, UPDATE]
      apiGroups: [apps]
      apiVersions: [v1]
      resources: [deployments]
`
	return map[string]string{
		"validatingwebhookconfigurations": hook("ValidatingWebhookConfiguration", ""),
		"mutatingwebhookconfigurations":   hook("MutatingWebhookConfiguration", "  reinvocationPolicy: IfNeeded\n"),
		"validatingadmissionpolicies": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-` + suffix + `
spec:
` + match + `  validations:
  - expression: object.spec.replicas <= 5
`,
		"validatingadmissionpolicybindings": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-` + suffix + `
spec:
  policyName: e2e-` + suffix + `
  validationActions: [Deny]
`,
		"mutatingadmissionpolicies": `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: e2e-` + suffix + `
spec:
` + match + `  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"seen": "yes"}}}'
`,
		"mutatingadmissionpolicybindings": `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: e2e-` + suffix + `
spec:
  policyName: e2e-` + suffix + `
`,
	}
}

// TestAdmissionRegistrationCRUD: each admissionregistration kind is
// created from YAML with its defaults, printed with Kubernetes' columns,
// patched and deleted with the stock kubectl.
func TestAdmissionRegistrationCRUD(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	name := "e2e-crud"
	headers := map[string][]string{
		"validatingwebhookconfigurations":   {"NAME", "WEBHOOKS", "AGE"},
		"mutatingwebhookconfigurations":     {"NAME", "WEBHOOKS", "AGE"},
		"validatingadmissionpolicies":       {"NAME", "VALIDATIONS", "PARAMKIND", "AGE"},
		"validatingadmissionpolicybindings": {"NAME", "POLICYNAME", "PARAMREF", "AGE"},
		"mutatingadmissionpolicies":         {"NAME", "MUTATIONS", "PARAMKIND", "AGE"},
		"mutatingadmissionpolicybindings":   {"NAME", "POLICYNAME", "PARAMREF", "AGE"},
	}
	for resource, manifest := range admissionManifests("crud") {
		t.Run(resource, func(t *testing.T) {
			out := k.MustRunStdin(t, manifest, "create", "-f", "-")
			expectContains(t, "create "+resource, out, name+" created")
			tb := parseTable(t, k.MustRun(t, "get", resource, name))
			expectHeader(t, "get "+resource, tb, headers[resource]...)
			r := tb.row(t, name)
			switch resource {
			case "validatingwebhookconfigurations", "mutatingwebhookconfigurations":
				if r["WEBHOOKS"] != "1" {
					t.Errorf("row %v", r)
				}
				got := k.MustRun(t, "get", resource, name, "-o",
					"jsonpath={.webhooks[0].failurePolicy},{.webhooks[0].matchPolicy},{.webhooks[0].clientConfig.service.port},{.webhooks[0].timeoutSeconds},{.webhooks[0].rules[0].scope}")
				if got != "Fail,Equivalent,443,10,*" {
					t.Errorf("defaults: %s, want Fail,Equivalent,443,10,*", got)
				}
			case "validatingadmissionpolicies":
				if r["VALIDATIONS"] != "1" || r["PARAMKIND"] != "<unset>" {
					t.Errorf("row %v", r)
				}
			case "mutatingadmissionpolicies":
				if r["MUTATIONS"] != "1" || r["PARAMKIND"] != "<unset>" {
					t.Errorf("row %v", r)
				}
			default:
				if r["POLICYNAME"] != name || r["PARAMREF"] != "<unset>" {
					t.Errorf("row %v", r)
				}
			}
			k.MustRun(t, "patch", resource, name, "--type=merge", "-p", `{"metadata":{"labels":{"patched":"yes"}}}`)
			if got := k.MustRun(t, "get", resource, name, "-o", "jsonpath={.metadata.labels.patched}"); got != "yes" {
				t.Errorf("after patch: label %q", got)
			}
			expectContains(t, "delete "+resource, k.MustRun(t, "delete", resource, name), "deleted")
			r2 := k.MustFail(t, "", "get", resource, name)
			expectContains(t, "get after delete", r2.Stderr, "NotFound")
		})
	}
}

// TestAdmissionRegistrationBadInput: invalid objects are refused with
// Kubernetes' field errors, and nothing is stored.
func TestAdmissionRegistrationBadInput(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	m := admissionManifests("bad")
	for _, tc := range []struct {
		resource, from, to, want string
	}{
		{"validatingwebhookconfigurations", "sideEffects: None", "sideEffects: Some", `webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		{"mutatingwebhookconfigurations", "name: pods.e2e.example.com", "name: hook", `webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots`},
		{"validatingadmissionpolicies", "  validations:\n  - expression: object.spec.replicas <= 5\n", "", "spec.validations: Required value: validations or auditAnnotations must contain at least one item"},
		{"validatingadmissionpolicybindings", "validationActions: [Deny]", "validationActions: [Deny, Warn]", "spec.validationActions: Invalid value"},
		{"mutatingadmissionpolicies", "reinvocationPolicy: Never", "reinvocationPolicy: Always", `spec.reinvocationPolicy: Unsupported value: "Always"`},
		{"mutatingadmissionpolicybindings", "policyName: e2e-bad", `policyName: ""`, "spec.policyName: Required value"},
	} {
		manifest := strings.Replace(m[tc.resource], tc.from, tc.to, 1)
		r := k.MustFail(t, manifest, "create", "-f", "-")
		expectContains(t, tc.resource, r.Stderr, "is invalid", tc.want)
		r = k.MustFail(t, "", "get", tc.resource, "e2e-bad")
		expectContains(t, tc.resource+" stored", r.Stderr, "NotFound")
	}
	r := k.MustFail(t, "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n  name: e2e-bad\nspec:\n  priorityLevelConfiguration:\n    name: global-default\n  matchingPrecedence: 20000\n", "create", "-f", "-")
	expectContains(t, "flowschema", r.Stderr, "spec.matchingPrecedence: Invalid value: 20000: must be a positive value no more than 10000")
	r = k.MustFail(t, "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: e2e-bad\nspec:\n  group: metrics.k8s.io\n  version: v1beta1\n  groupPriorityMinimum: 100\n  versionPriority: 100\n", "create", "-f", "-")
	expectContains(t, "apiservice", r.Stderr, "metadata.name: Invalid value: \"e2e-bad\": must be `spec.version+\".\"+spec.group`")
}

// TestAPIAuthResources: kubectl api-resources lists the resources of the
// authentication, authorization, admissionregistration, apiregistration
// and flowcontrol groups as a Kubernetes 1.36 server does.
func TestAPIAuthResources(t *testing.T) {
	t.Parallel()
	out := server.Kubectl(t).MustRun(t, "api-resources", "-o", "wide")
	all := "create,delete,deletecollection,get,list,patch,update,watch"
	for _, re := range []string{
		`tokenreviews\s+authentication\.k8s\.io/v1\s+false\s+TokenReview\s+create`,
		`selfsubjectreviews\s+authentication\.k8s\.io/v1\s+false\s+SelfSubjectReview\s+create`,
		`localsubjectaccessreviews\s+authorization\.k8s\.io/v1\s+true\s+LocalSubjectAccessReview\s+create`,
		`apiservices\s+apiregistration\.k8s\.io/v1\s+false\s+APIService\s+` + all + `\s+api-extensions`,
		`validatingwebhookconfigurations\s+admissionregistration\.k8s\.io/v1\s+false\s+ValidatingWebhookConfiguration\s+` + all + `\s+api-extensions`,
		`mutatingadmissionpolicybindings\s+admissionregistration\.k8s\.io/v1\s+false\s+MutatingAdmissionPolicyBinding\s+` + all + `\s+api-extensions`,
		`flowschemas\s+flowcontrol\.apiserver\.k8s\.io/v1\s+false\s+FlowSchema\s+` + all,
		`prioritylevelconfigurations\s+flowcontrol\.apiserver\.k8s\.io/v1\s+false\s+PriorityLevelConfiguration\s+` + all,
	} {
		if !regexp.MustCompile(`(?m)^` + re + `\s*$`).MatchString(out) {
			t.Errorf("api-resources -o wide has no line matching %s", re)
		}
	}
}
