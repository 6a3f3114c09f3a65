package e2e

import (
	"strings"
	"testing"
)

// crdManifest is the CronTab definition of the Kubernetes documentation's
// example, with status and scale subresources and printer columns.
const crdManifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: CronTab runs an image on a schedule.
        type: object
        properties:
          spec:
            description: The schedule and what runs.
            type: object
            required: [cronSpec]
            properties:
              cronSpec:
                description: When to run, in cron syntax.
                type: string
                pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'
              image:
                description: The image to run.
                type: string
              replicas:
                description: How many copies run.
                type: integer
                minimum: 0
                maximum: 10
                default: 1
          status:
            type: object
            properties:
              replicas:
                type: integer
              labelSelector:
                type: string
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    additionalPrinterColumns:
    - name: Spec
      type: string
      description: The cron spec.
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
`

const crontabsManifest = `apiVersion: e2e.example.com/v1
kind: CronTab
metadata:
  name: nightly
spec:
  cronSpec: "0 2 * * *"
  image: backup:1
---
apiVersion: e2e.example.com/v1
kind: CronTab
metadata:
  name: hourly
spec:
  cronSpec: "0 * * * *"
  image: report:1
  replicas: 3
`

// TestCustomResourceDefinition drives a CustomResourceDefinition and its
// objects with the stock kubectl: apply, get with printer columns,
// explain, patch, scale, strict validation and delete.
func TestCustomResourceDefinition(t *testing.T) {
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "crd")
	crdFile := writeFile(t, "crd.yaml", crdManifest)

	out := k.MustRun(t, "apply", "-f", crdFile)
	expectContains(t, "apply crd", out, "customresourcedefinition.apiextensions.k8s.io/crontabs.e2e.example.com created")
	k.MustRun(t, "wait", "--for=condition=Established", "crd/crontabs.e2e.example.com", "--timeout=30s")

	out = k.MustRun(t, "apply", "-n", ns, "-f", writeFile(t, "crontabs.yaml", crontabsManifest))
	expectContains(t, "apply crontabs", out, "crontab.e2e.example.com/nightly created", "crontab.e2e.example.com/hourly created")

	tb := parseTable(t, k.MustRun(t, "get", "crontabs", "-n", ns))
	expectHeader(t, "get crontabs", tb, "NAME", "SPEC", "REPLICAS", "AGE")
	if row := tb.row(t, "nightly"); row["SPEC"] != "0 2 * * *" || row["REPLICAS"] != "1" || !strings.HasSuffix(row["AGE"], "s") {
		t.Errorf("nightly row %v (replicas defaulted to 1)", row)
	}
	if row := tb.row(t, "hourly"); row["REPLICAS"] != "3" {
		t.Errorf("hourly row %v", row)
	}
	// The short name and the fully qualified name work too.
	tb = parseTable(t, k.MustRun(t, "get", "ct", "hourly", "-n", ns))
	tb.row(t, "hourly")
	o := decodeJSON(t, k.MustRun(t, "get", "crontabs.e2e.example.com", "nightly", "-n", ns, "-o", "json"))
	if o.str("apiVersion") != "e2e.example.com/v1" || o.str("spec.image") != "backup:1" {
		t.Errorf("get -o json: %v", o)
	}

	out = k.MustRun(t, "explain", "crontab.spec")
	expectContains(t, "explain crontab.spec", out, "KIND:", "CronTab", "cronSpec", "<string>", "When to run, in cron syntax.", "replicas", "<integer>", "-required-")
	out = k.MustRun(t, "explain", "crontabs")
	expectContains(t, "explain crontabs", out, "CronTab runs an image on a schedule.", "spec", "status")

	out = k.MustRun(t, "patch", "crontab", "nightly", "-n", ns, "--type", "merge", "-p", `{"spec":{"image":"backup:2"}}`)
	expectContains(t, "patch", out, "crontab.e2e.example.com/nightly patched")
	if img := k.MustRun(t, "get", "crontab", "nightly", "-n", ns, "-o", "jsonpath={.spec.image}"); img != "backup:2" {
		t.Errorf("image after patch %q", img)
	}
	// kubectl's default patch is strategic, which custom resources refuse.
	r := k.MustFail(t, "", "patch", "crontab", "nightly", "-n", ns, "-p", `{"spec":{"image":"backup:3"}}`)
	expectContains(t, "strategic patch", r.Stderr, "application/strategic-merge-patch+json")

	out = k.MustRun(t, "scale", "crontab", "nightly", "-n", ns, "--replicas=4")
	expectContains(t, "scale", out, "crontab.e2e.example.com/nightly scaled")
	if n := k.MustRun(t, "get", "crontab", "nightly", "-n", ns, "-o", "jsonpath={.spec.replicas}"); n != "4" {
		t.Errorf("replicas after scale %q", n)
	}

	// Re-applying a changed file patches the objects with a three-way
	// merge patch: hourly's image changes, nightly's patched image goes
	// back to the file's, its scaled replicas (not in the file) stay.
	changed := strings.Replace(crontabsManifest, "report:1", "report:2", 1)
	out = k.MustRun(t, "apply", "-n", ns, "-f", writeFile(t, "crontabs2.yaml", changed))
	expectContains(t, "re-apply", out, "crontab.e2e.example.com/hourly configured", "crontab.e2e.example.com/nightly configured")
	if got := k.MustRun(t, "get", "crontab", "nightly", "-n", ns, "-o", "jsonpath={.spec.image} {.spec.replicas}"); got != "backup:1 4" {
		t.Errorf("nightly after re-apply: %q", got)
	}
	out = k.MustRun(t, "apply", "-n", ns, "-f", writeFile(t, "crontabs3.yaml", changed))
	expectContains(t, "apply unchanged", out, "crontab.e2e.example.com/hourly unchanged", "crontab.e2e.example.com/nightly unchanged")

	// Bad objects never reach storage.
	bad := "apiVersion: e2e.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad\nspec:\n  cronSpec: sometimes\n  replicas: 20\n"
	r = k.MustFail(t, bad, "apply", "-n", ns, "-f", "-")
	expectContains(t, "invalid object", r.Stderr, "spec.cronSpec", "spec.replicas", "Invalid value")
	unknown := "apiVersion: e2e.example.com/v1\nkind: CronTab\nmetadata:\n  name: unknown\nspec:\n  cronSpec: '* * * * *'\n  colour: blue\n"
	r = k.MustFail(t, unknown, "apply", "-n", ns, "--validate=strict", "-f", "-")
	expectContains(t, "strict validation", r.Stderr, `unknown field "spec.colour"`)
	r = k.MustFail(t, "", "get", "crontab", "bad", "-n", ns)
	expectContains(t, "bad not stored", r.Stderr, "NotFound")
	k.MustFail(t, "", "get", "crontab", "unknown", "-n", ns)

	out = k.MustRun(t, "delete", "crontab", "hourly", "-n", ns)
	expectContains(t, "delete crontab", out, `crontab.e2e.example.com "hourly" deleted`)

	// Deleting the definition deletes its objects and its resource.
	out = k.MustRun(t, "delete", "-f", crdFile)
	expectContains(t, "delete crd", out, `customresourcedefinition.apiextensions.k8s.io "crontabs.e2e.example.com" deleted`)
	// kubectl's discovery cache still knows the resource: it asks and is
	// told NotFound; with a fresh cache it does not know the type at all.
	r = k.MustFail(t, "", "get", "crontabs", "-n", ns)
	expectContains(t, "resource gone", r.Stderr, "NotFound", "e2e.example.com/v1, Resource=crontabs")
	r = k.With("HOME="+t.TempDir()).MustFail(t, "", "get", "crontabs", "-n", ns)
	expectContains(t, "resource gone from discovery", r.Stderr, `the server doesn't have a resource type "crontabs"`)

	// A definition whose schema is not structural is refused.
	nonStructural := strings.Replace(crdManifest, "              image:\n                description: The image to run.\n                type: string\n",
		"              image:\n                description: The image to run.\n", 1)
	r = k.MustFail(t, nonStructural, "apply", "-f", "-")
	expectContains(t, "non-structural", r.Stderr, "is invalid", "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[image].type", "Required value")
}
