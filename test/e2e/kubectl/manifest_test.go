package kubectl

import (
	"path/filepath"
	"testing"
)

// TestManifestErrors compares what both CLIs say of manifests that do not
// parse: the file, the parser's message and the line within the failing
// document; the objects before the error are still worked on.
func TestManifestErrors(t *testing.T) {
	t.Parallel()
	single := suite.writeFile(t, "single.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: single\ndata:\n  a: [b\n")
	second := suite.writeFile(t, "second.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n name: bad\n  indented: 1\n")
	suite.writeFile(t, "third.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: third}\n")
	json := suite.writeFile(t, "broken.json", "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"j\"},\n \"data\": {\"a\": }}\n")
	dir := filepath.Dir(single)
	suite.pair(t, nil,
		cmd("apply", "-n", "NS", "-f", single),
		cmd("create", "-n", "NS", "-f", second),
		cmd("get", "cm", "first", "-n", "NS", "-o", "name"),
		cmd("apply", "-n", "NS", "-f", second, "--dry-run=client"),
		cmd("replace", "-n", "NS", "-f", second),
		cmd("apply", "-n", "NS", "-f", dir),
		cmd("delete", "-n", "NS", "-f", dir),
		cmd("create", "-n", "NS", "-f", json),
		withStdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n", "apply", "-n", "NS", "-f", "-"),
		cmd("get", "-n", "NS", "-f", single),
	)
}

// TestCreateEditRaw runs create --edit with an editor that changes the
// manifest, and create --raw and get --raw.
func TestCreateEditRaw(t *testing.T) {
	t.Parallel()
	manifest := suite.writeFile(t, "conf.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  color: blue\n")
	raw := suite.writeFile(t, "raw.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raw"},"data":{"k":"v"}}`)
	editor := func(e string, args ...string) step {
		return step{args: args, env: []string{"EDITOR=" + e}}
	}
	suite.pair(t, nil,
		editor("true", "create", "--edit", "-f", manifest, "-n", "NS"),
		editor("sed -i s/blue/green/", "create", "--edit", "-f", manifest, "-n", "NS", "-o", "name"),
		editor("sed -i s/blue/green/", "create", "--edit", "-f", manifest, "-n", "NS"),
		editor("sed -i s/blue/green/", "create", "--edit", "-f", manifest, "-n", "NS"),
		editor("sed -i s/name:.conf$/name:\\ bad_name/", "create", "--edit", "-f", manifest, "-n", "NS"),
		editor("sed -i s/name:.conf$/name:\\ two/", "create", "--edit", "-f", manifest, "-n", "NS", "-o", "yaml"),
		cmd("get", "cm", "conf", "two", "-n", "NS", "-o", "jsonpath={.items[*].data.color}"),
		editor("sed -i s/blue/green/", "create", "--edit", "-f", manifest, "--raw", "/x"),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", raw),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", raw),
		withStdin(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fromstdin"}}`, "create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", "-"),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps"),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", raw, "-f", raw),
		cmd("create", "--raw", "api/v1", "-f", raw),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", raw, "-o", "yaml"),
		cmd("create", "--raw", "/api/v1/namespaces/NS/configmaps", "-f", raw, "-R"),
		cmd("get", "--raw", "/api/v1/namespaces/NS/configmaps/fromstdin"),
		cmd("get", "--raw", "/api/v1/namespaces/NS/configmaps?limit=1&labelSelector=none"),
		cmd("get", "--raw", "api/v1"),
		cmd("get", "--raw", "/api/v1", "-o", "yaml"),
		cmd("get", "--raw", "/api/v1", "-w"),
		cmd("get", "--raw", "/api/v1", "pods"),
		cmd("create"),
	)
}
