package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestStorageAndAutoscalingKinds drives each storage.k8s.io/v1 and
// resource.k8s.io/v1 kind and the HorizontalPodAutoscaler through the
// stock kubectl: create from
// YAML, get (the columns kubectl prints against Kubernetes), describe,
// patch and delete; bad input is refused with Kubernetes' error and
// nothing is stored.
func TestStorageAndAutoscalingKinds(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "storage-kinds")
	p := ns + "-" // cluster-scoped names are unique to the test

	cases := []struct {
		resource   string
		name       string
		namespaced bool
		manifest   string
		header     []string
		cells      map[string]string
		bad        string
		badWant    string
		// kubectl v1.32's describer of the kind asks for another version
		// (volumeattributesclasses: storage.k8s.io/v1beta1, which
		// Kubernetes 1.36 does not serve by default either).
		noDescribe bool
	}{{
		resource: "storageclasses", name: p + "fast",
		manifest: "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: %s\nprovisioner: example.com/disk\nreclaimPolicy: Retain\nallowVolumeExpansion: true\n",
		header:   []string{"NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"},
		cells:    map[string]string{"PROVISIONER": "example.com/disk", "RECLAIMPOLICY": "Retain", "VOLUMEBINDINGMODE": "Immediate", "ALLOWVOLUMEEXPANSION": "true"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: %s\nprovisioner: example.com/disk\nreclaimPolicy: Recycle\n",
		badWant:  `The StorageClass "%s" is invalid: reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
	}, {
		resource: "csidrivers", name: p + "csi.example.com",
		manifest: "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: %s\nspec:\n  podInfoOnMount: true\n  tokenRequests:\n  - audience: vault\n",
		header:   []string{"NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"},
		cells:    map[string]string{"ATTACHREQUIRED": "true", "PODINFOONMOUNT": "true", "STORAGECAPACITY": "false", "TOKENREQUESTS": "vault", "REQUIRESREPUBLISH": "false", "MODES": "Persistent"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: %s\nspec:\n  volumeLifecycleModes: [Forever]\n",
		badWant:  `The CSIDriver "%s" is invalid: spec.volumeLifecycleModes[0]: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"`,
	}, {
		resource: "csinodes", name: p + "node",
		manifest: "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata:\n  name: %s\nspec:\n  drivers:\n  - name: csi.example.com\n    nodeID: n1\n    topologyKeys: [zone]\n",
		header:   []string{"NAME", "DRIVERS", "AGE"},
		cells:    map[string]string{"DRIVERS": "1"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata:\n  name: %s\nspec:\n  drivers:\n  - name: csi.example.com\n",
		badWant:  `The CSINode "%s" is invalid: spec.drivers[0].nodeID: Required value`,
	}, {
		resource: "csistoragecapacities", name: "cap", namespaced: true,
		manifest: "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata:\n  name: %s\nstorageClassName: fast\ncapacity: 10Gi\n",
		header:   []string{"NAME", "STORAGECLASSNAME", "CAPACITY", "AGE"},
		cells:    map[string]string{"STORAGECLASSNAME": "fast", "CAPACITY": "10Gi"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata:\n  name: %s\ncapacity: 10Gi\n",
		badWant:  `The CSIStorageCapacity "%s" is invalid: storageClassName: Required value`,
	}, {
		resource: "volumeattachments", name: p + "va",
		manifest: "apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: %s\nspec:\n  attacher: csi.example.com\n  nodeName: node-a\n  source:\n    persistentVolumeName: pv-1\n",
		header:   []string{"NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"},
		cells:    map[string]string{"ATTACHER": "csi.example.com", "PV": "pv-1", "NODE": "node-a", "ATTACHED": "false"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: %s\nspec:\n  attacher: csi.example.com\n  nodeName: node-a\n  source: {}\n",
		badWant:  `The VolumeAttachment "%s" is invalid: spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName`,
	}, {
		resource: "volumeattributesclasses", name: p + "gold", noDescribe: true,
		manifest: "apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata:\n  name: %s\ndriverName: csi.example.com\nparameters:\n  iops: \"3000\"\n",
		header:   []string{"NAME", "DRIVERNAME", "AGE"},
		cells:    map[string]string{"DRIVERNAME": "csi.example.com"},
		bad:      "apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata:\n  name: %s\n",
		badWant:  `The VolumeAttributesClass "%s" is invalid: driverName: Required value`,
	}, {
		resource: "deviceclasses", name: p + "gpu",
		manifest: "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: %s\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n",
		header:   []string{"NAME", "AGE"},
		bad:      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: %s\nspec:\n  selectors:\n  - {}\n",
		badWant:  `The DeviceClass "%s" is invalid: spec.selectors[0].cel: Required value`,
	}, {
		resource: "resourceclaims", name: "gpu", namespaced: true,
		manifest: "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: %s\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: gpu\n",
		header:   []string{"NAME", "STATE", "AGE"},
		cells:    map[string]string{"STATE": "pending"},
		bad:      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: %s\nspec:\n  devices:\n    requests:\n    - name: gpu\n",
		badWant:  "The ResourceClaim \"%s\" is invalid: spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required",
	}, {
		resource: "resourceclaimtemplates", name: "gpu", namespaced: true,
		manifest: "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: %s\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu\n",
		header:   []string{"NAME", "AGE"},
		bad:      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: %s\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu\n          allocationMode: Some\n",
		badWant:  `The ResourceClaimTemplate "%s" is invalid: spec.spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`,
	}, {
		resource: "resourceslices", name: p + "node-a-gpu",
		manifest: "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: %s\nspec:\n  driver: gpu.example.com\n  nodeName: node-a\n  pool: {name: node-a, generation: 1, resourceSliceCount: 1}\n  devices:\n  - name: gpu-0\n    attributes:\n      model: {string: x100}\n    capacity:\n      memory: {value: 16Gi}\n",
		header:   []string{"NAME", "NODE", "DRIVER", "POOL", "AGE"},
		cells:    map[string]string{"NODE": "node-a", "DRIVER": "gpu.example.com", "POOL": "node-a"},
		bad:      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: %s\nspec:\n  driver: gpu.example.com\n  pool: {name: node-a, generation: 1, resourceSliceCount: 1}\n",
		badWant:  "The ResourceSlice \"%s\" is invalid: spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
	}, {
		resource: "horizontalpodautoscalers", name: "web", namespaced: true,
		manifest: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 4\n  metrics:\n  - type: Resource\n    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}\n",
		header:   []string{"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"},
		cells:    map[string]string{"REFERENCE": "Deployment/web", "TARGETS": "memory: <unknown>/500Mi", "MINPODS": "1", "MAXPODS": "4", "REPLICAS": "0"},
		bad:      "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 0\n",
		badWant:  "The HorizontalPodAutoscaler \"%s\" is invalid: \n* spec.maxReplicas: Invalid value: 0: must be greater than 0\n* spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
	}}
	for _, c := range cases {
		nsArgs := []string{}
		if c.namespaced {
			nsArgs = []string{"-n", ns}
		}
		args := func(a ...string) []string { return append(a, nsArgs...) }
		out := k.MustRunStdin(t, fmt.Sprintf(c.manifest, c.name), args("create", "-f", "-")...)
		expectContains(t, "create "+c.resource, out, c.name+" created")

		what := "get " + c.resource
		tb := parseTable(t, k.MustRun(t, args("get", c.resource, c.name)...))
		expectHeader(t, what, tb, c.header...)
		if len(tb.header) == len(c.header) {
			row := tb.row(t, c.name)
			if !isAge(row["AGE"]) {
				t.Errorf("%s: AGE %q", what, row["AGE"])
			}
			for col, want := range c.cells {
				if row[col] != want {
					t.Errorf("%s: %s is %q, want %q", what, col, row[col], want)
				}
			}
		}
		if !c.noDescribe {
			expectContains(t, "describe "+c.resource, k.MustRun(t, args("describe", c.resource, c.name)...), c.name)
		}
		k.MustRun(t, args("patch", c.resource, c.name, "--type=merge", "-p", `{"metadata":{"labels":{"patched":"yes"}}}`)...)
		if got := k.MustRun(t, args("get", c.resource, c.name, "-o", "jsonpath={.metadata.labels.patched}")...); got != "yes" {
			t.Errorf("patch %s: label %q", c.resource, got)
		}
		expectContains(t, "delete "+c.resource, k.MustRun(t, args("delete", c.resource, c.name)...), "deleted")

		badName := c.name + "-bad"
		r := k.MustFail(t, fmt.Sprintf(c.bad, badName), args("create", "-f", "-")...)
		expectContains(t, "bad "+c.resource, r.Stderr, fmt.Sprintf(c.badWant, badName))
		if r := k.Run(t, args("get", c.resource, badName)...); r.ExitCode == 0 || !strings.Contains(r.Stderr, "NotFound") {
			t.Errorf("bad %s was stored: %s", c.resource, r)
		}
	}
}

// TestKubectlAutoscale: `kubectl autoscale` makes an autoscaler of the
// deployment, shown with its CPU target; the default local-path class is
// listed as the default.
func TestKubectlAutoscale(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "autoscale")
	k.MustRunStdin(t, fmt.Sprintf(deploymentManifest, "x", ns, "web", 1), "create", "-f", "-")
	expectContains(t, "autoscale", k.MustRun(t, "autoscale", "deployment", "x", "--min=1", "--max=3", "--cpu-percent=50", "-n", ns),
		"horizontalpodautoscaler.autoscaling/x autoscaled")
	row := parseTable(t, k.MustRun(t, "get", "hpa", "x", "-n", ns)).row(t, "x")
	if row["REFERENCE"] != "Deployment/x" || row["TARGETS"] != "cpu: <unknown>/50%" || row["MINPODS"] != "1" || row["MAXPODS"] != "3" {
		t.Errorf("get hpa x: %v", row)
	}
	if got := k.MustRun(t, "get", "horizontalpodautoscalers.v1.autoscaling", "x", "-n", ns, "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}"); got != "50" {
		t.Errorf("autoscaling/v1 target %q, want 50", got)
	}
	row = parseTable(t, k.MustRun(t, "get", "storageclass")).row(t, "local-path (default)")
	if row["PROVISIONER"] != "kubecore.io/local-path" || row["VOLUMEBINDINGMODE"] != "WaitForFirstConsumer" || row["RECLAIMPOLICY"] != "Delete" {
		t.Errorf("get storageclass local-path: %v", row)
	}
}
