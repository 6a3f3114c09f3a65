package clientcmd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"kubecore.io/client/tools/clientcmd/api"
)

// The kubeconfig file format (apiVersion v1, kind Config): lists of named
// entries, with the JSON names kubectl reads and writes. The -data fields are
// kept as base64 strings here so that a bad one is reported with its path.

type fileConfig struct {
	Kind           string               `json:"kind,omitempty"`
	APIVersion     string               `json:"apiVersion,omitempty"`
	Preferences    filePreferences      `json:"preferences"`
	Clusters       []fileNamedCluster   `json:"clusters"`
	AuthInfos      []fileNamedAuthInfo  `json:"users"`
	Contexts       []fileNamedContext   `json:"contexts"`
	CurrentContext string               `json:"current-context"`
	Extensions     []fileNamedExtension `json:"extensions,omitempty"`
}

// fileConfigLists is fileConfig with its entries left undecoded, so that each
// one is decoded alone and its errors carry its index.
type fileConfigLists struct {
	Kind           string            `json:"kind"`
	APIVersion     string            `json:"apiVersion"`
	Preferences    json.RawMessage   `json:"preferences"`
	Clusters       []json.RawMessage `json:"clusters"`
	AuthInfos      []json.RawMessage `json:"users"`
	Contexts       []json.RawMessage `json:"contexts"`
	CurrentContext string            `json:"current-context"`
	Extensions     []json.RawMessage `json:"extensions"`
}

type filePreferences struct {
	Colors     bool                 `json:"colors,omitempty"`
	Extensions []fileNamedExtension `json:"extensions,omitempty"`
}

type fileNamedCluster struct {
	Name    string      `json:"name"`
	Cluster fileCluster `json:"cluster"`
}

type fileCluster struct {
	Server                   string               `json:"server"`
	TLSServerName            string               `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool                 `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthority     string               `json:"certificate-authority,omitempty"`
	CertificateAuthorityData string               `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string               `json:"proxy-url,omitempty"`
	DisableCompression       bool                 `json:"disable-compression,omitempty"`
	Extensions               []fileNamedExtension `json:"extensions,omitempty"`
}

type fileNamedAuthInfo struct {
	Name     string       `json:"name"`
	AuthInfo fileAuthInfo `json:"user"`
}

type fileAuthInfo struct {
	ClientCertificate     string               `json:"client-certificate,omitempty"`
	ClientCertificateData string               `json:"client-certificate-data,omitempty"`
	ClientKey             string               `json:"client-key,omitempty"`
	ClientKeyData         string               `json:"client-key-data,omitempty"`
	Token                 string               `json:"token,omitempty"`
	TokenFile             string               `json:"tokenFile,omitempty"`
	Impersonate           string               `json:"as,omitempty"`
	ImpersonateUID        string               `json:"as-uid,omitempty"`
	ImpersonateGroups     []string             `json:"as-groups,omitempty"`
	ImpersonateUserExtra  map[string][]string  `json:"as-user-extra,omitempty"`
	Username              string               `json:"username,omitempty"`
	Password              string               `json:"password,omitempty"`
	AuthProvider          json.RawMessage      `json:"auth-provider,omitempty"`
	Exec                  json.RawMessage      `json:"exec,omitempty"`
	Extensions            []fileNamedExtension `json:"extensions,omitempty"`
}

type fileNamedContext struct {
	Name    string      `json:"name"`
	Context fileContext `json:"context"`
}

type fileContext struct {
	Cluster    string               `json:"cluster"`
	AuthInfo   string               `json:"user"`
	Namespace  string               `json:"namespace,omitempty"`
	Extensions []fileNamedExtension `json:"extensions,omitempty"`
}

type fileNamedExtension struct {
	Name      string          `json:"name"`
	Extension json.RawMessage `json:"extension"`
}

// Load parses a kubeconfig (YAML or JSON). Empty data is an empty Config.
// Paths in it are returned as written; LoadFromFile resolves relative ones.
func Load(data []byte) (*api.Config, error) {
	cfg := api.NewConfig()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %s", strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
	}
	if string(bytes.TrimSpace(js)) == "null" {
		return cfg, nil
	}
	var lists fileConfigLists
	if err := decodeJSON(js, &lists, ""); err != nil {
		return nil, err
	}
	if lists.APIVersion != "" && lists.APIVersion != "v1" {
		return nil, fmt.Errorf("apiVersion: unsupported value %q, want v1", lists.APIVersion)
	}
	if lists.Kind != "" && lists.Kind != "Config" {
		return nil, fmt.Errorf("kind: unsupported value %q, want Config", lists.Kind)
	}
	if err := decodePreferences(lists.Preferences, &cfg.Preferences); err != nil {
		return nil, err
	}
	cfg.CurrentContext = lists.CurrentContext
	if cfg.Extensions, err = decodeExtensions(lists.Extensions, "extensions"); err != nil {
		return nil, err
	}
	if err := decodeList(lists.Clusters, "clusters", cfg.Clusters, decodeCluster); err != nil {
		return nil, err
	}
	if err := decodeList(lists.AuthInfos, "users", cfg.AuthInfos, decodeAuthInfo); err != nil {
		return nil, err
	}
	if err := decodeList(lists.Contexts, "contexts", cfg.Contexts, decodeContext); err != nil {
		return nil, err
	}
	return cfg, nil
}

// LoadFromFile reads the kubeconfig at path. Every entry's LocationOfOrigin is
// path, and relative file references in it are resolved against path's
// directory. Errors start with "kubeconfig <path>: ".
func LoadFromFile(path string) (*api.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	cfg, err := Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	dir := filepath.Dir(abs)
	for _, c := range cfg.Clusters {
		c.LocationOfOrigin = path
		c.CertificateAuthority = resolvePath(dir, c.CertificateAuthority)
	}
	for _, a := range cfg.AuthInfos {
		a.LocationOfOrigin = path
		a.ClientCertificate = resolvePath(dir, a.ClientCertificate)
		a.ClientKey = resolvePath(dir, a.ClientKey)
		a.TokenFile = resolvePath(dir, a.TokenFile)
	}
	for _, c := range cfg.Contexts {
		c.LocationOfOrigin = path
	}
	return cfg, nil
}

func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// fileError says "kubeconfig <path>: <what went wrong>", naming path once.
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("kubeconfig %s: %s: %w", path, pe.Op, pe.Err)
	}
	return fmt.Errorf("kubeconfig %s: %w", path, err)
}

// decodeJSON decodes data into v, turning type errors into
// "<path>.<field>: ..." messages.
func decodeJSON(data []byte, v any, path string) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		field := joinPath(path, te.Field)
		if field == "" {
			return fmt.Errorf("not a kubeconfig: the top level must be a map, got %s", te.Value)
		}
		return fmt.Errorf("%s: got %s, want %s", field, te.Value, describeType(te.Type))
	case path == "":
		return err
	default:
		return fmt.Errorf("%s: %w", path, err)
	}
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a map"
	default:
		return t.String()
	}
}

// decodeList decodes each raw entry of a named list with decode, and stores it
// in out under its name; names must be set and unique.
func decodeList[T any](raw []json.RawMessage, list string, out map[string]*T, decode func(json.RawMessage, string) (string, *T, error)) error {
	for i, r := range raw {
		path := fmt.Sprintf("%s[%d]", list, i)
		name, v, err := decode(r, path)
		if err != nil {
			return err
		}
		if name == "" {
			return fmt.Errorf("%s.name: required", path)
		}
		if _, dup := out[name]; dup {
			return fmt.Errorf("%s.name: duplicate name %q", path, name)
		}
		out[name] = v
	}
	return nil
}

func decodeCluster(raw json.RawMessage, path string) (string, *api.Cluster, error) {
	var n fileNamedCluster
	if err := decodeJSON(raw, &n, path); err != nil {
		return "", nil, err
	}
	f := n.Cluster
	path += ".cluster"
	ca, err := decodeData(f.CertificateAuthorityData, path+".certificate-authority-data")
	if err != nil {
		return "", nil, err
	}
	ext, err := decodeNamedExtensions(f.Extensions, path+".extensions")
	if err != nil {
		return "", nil, err
	}
	return n.Name, &api.Cluster{
		Server:                   f.Server,
		TLSServerName:            f.TLSServerName,
		InsecureSkipTLSVerify:    f.InsecureSkipTLSVerify,
		CertificateAuthority:     f.CertificateAuthority,
		CertificateAuthorityData: ca,
		ProxyURL:                 f.ProxyURL,
		DisableCompression:       f.DisableCompression,
		Extensions:               ext,
	}, nil
}

func decodeAuthInfo(raw json.RawMessage, path string) (string, *api.AuthInfo, error) {
	var n fileNamedAuthInfo
	if err := decodeJSON(raw, &n, path); err != nil {
		return "", nil, err
	}
	f := n.AuthInfo
	path += ".user"
	certData, err := decodeData(f.ClientCertificateData, path+".client-certificate-data")
	if err != nil {
		return "", nil, err
	}
	keyData, err := decodeData(f.ClientKeyData, path+".client-key-data")
	if err != nil {
		return "", nil, err
	}
	ext, err := decodeNamedExtensions(f.Extensions, path+".extensions")
	if err != nil {
		return "", nil, err
	}
	return n.Name, &api.AuthInfo{
		ClientCertificate:     f.ClientCertificate,
		ClientCertificateData: certData,
		ClientKey:             f.ClientKey,
		ClientKeyData:         keyData,
		Token:                 f.Token,
		TokenFile:             f.TokenFile,
		Impersonate:           f.Impersonate,
		ImpersonateUID:        f.ImpersonateUID,
		ImpersonateGroups:     f.ImpersonateGroups,
		ImpersonateUserExtra:  f.ImpersonateUserExtra,
		Username:              f.Username,
		Password:              f.Password,
		AuthProvider:          nonNull(f.AuthProvider),
		Exec:                  nonNull(f.Exec),
		Extensions:            ext,
	}, nil
}

func decodeContext(raw json.RawMessage, path string) (string, *api.Context, error) {
	var n fileNamedContext
	if err := decodeJSON(raw, &n, path); err != nil {
		return "", nil, err
	}
	ext, err := decodeNamedExtensions(n.Context.Extensions, path+".context.extensions")
	if err != nil {
		return "", nil, err
	}
	return n.Name, &api.Context{
		Cluster:    n.Context.Cluster,
		AuthInfo:   n.Context.AuthInfo,
		Namespace:  n.Context.Namespace,
		Extensions: ext,
	}, nil
}

func decodePreferences(raw json.RawMessage, out *api.Preferences) error {
	if len(nonNull(raw)) == 0 {
		return nil
	}
	var f filePreferences
	if err := decodeJSON(raw, &f, "preferences"); err != nil {
		return err
	}
	ext, err := decodeNamedExtensions(f.Extensions, "preferences.extensions")
	if err != nil {
		return err
	}
	*out = api.Preferences{Colors: f.Colors, Extensions: ext}
	return nil
}

func decodeExtensions(raw []json.RawMessage, path string) (map[string]json.RawMessage, error) {
	named := make([]fileNamedExtension, len(raw))
	for i, r := range raw {
		if err := decodeJSON(r, &named[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return nil, err
		}
	}
	return decodeNamedExtensions(named, path)
}

func decodeNamedExtensions(named []fileNamedExtension, path string) (map[string]json.RawMessage, error) {
	if len(named) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(named))
	for i, e := range named {
		switch _, dup := out[e.Name]; {
		case e.Name == "":
			return nil, fmt.Errorf("%s[%d].name: required", path, i)
		case dup:
			return nil, fmt.Errorf("%s[%d].name: duplicate name %q", path, i, e.Name)
		}
		out[e.Name] = nonNull(e.Extension)
	}
	return out, nil
}

func decodeData(s, path string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return raw
}

// Marshal returns config as a kubeconfig file in YAML, entries sorted by name
// and keys in the order kubectl writes them.
func Marshal(config *api.Config) ([]byte, error) {
	f := fileConfig{
		Kind:           "Config",
		APIVersion:     "v1",
		Preferences:    filePreferences{Colors: config.Preferences.Colors, Extensions: encodeExtensions(config.Preferences.Extensions)},
		Clusters:       []fileNamedCluster{},
		AuthInfos:      []fileNamedAuthInfo{},
		Contexts:       []fileNamedContext{},
		CurrentContext: config.CurrentContext,
		Extensions:     encodeExtensions(config.Extensions),
	}
	for _, name := range sortedKeys(config.Clusters) {
		c := config.Clusters[name]
		f.Clusters = append(f.Clusters, fileNamedCluster{Name: name, Cluster: fileCluster{
			Server:                   c.Server,
			TLSServerName:            c.TLSServerName,
			InsecureSkipTLSVerify:    c.InsecureSkipTLSVerify,
			CertificateAuthority:     c.CertificateAuthority,
			CertificateAuthorityData: encodeData(c.CertificateAuthorityData),
			ProxyURL:                 c.ProxyURL,
			DisableCompression:       c.DisableCompression,
			Extensions:               encodeExtensions(c.Extensions),
		}})
	}
	for _, name := range sortedKeys(config.AuthInfos) {
		a := config.AuthInfos[name]
		f.AuthInfos = append(f.AuthInfos, fileNamedAuthInfo{Name: name, AuthInfo: fileAuthInfo{
			ClientCertificate:     a.ClientCertificate,
			ClientCertificateData: encodeData(a.ClientCertificateData),
			ClientKey:             a.ClientKey,
			ClientKeyData:         encodeData(a.ClientKeyData),
			Token:                 a.Token,
			TokenFile:             a.TokenFile,
			Impersonate:           a.Impersonate,
			ImpersonateUID:        a.ImpersonateUID,
			ImpersonateGroups:     a.ImpersonateGroups,
			ImpersonateUserExtra:  a.ImpersonateUserExtra,
			Username:              a.Username,
			Password:              a.Password,
			AuthProvider:          nonNull(a.AuthProvider),
			Exec:                  nonNull(a.Exec),
			Extensions:            encodeExtensions(a.Extensions),
		}})
	}
	for _, name := range sortedKeys(config.Contexts) {
		c := config.Contexts[name]
		f.Contexts = append(f.Contexts, fileNamedContext{Name: name, Context: fileContext{
			Cluster:    c.Cluster,
			AuthInfo:   c.AuthInfo,
			Namespace:  c.Namespace,
			Extensions: encodeExtensions(c.Extensions),
		}})
	}
	js, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode kubeconfig: %w", err)
	}
	out, err := yaml.JSONToYAML(js)
	if err != nil {
		return nil, fmt.Errorf("encode kubeconfig: %w", err)
	}
	return out, nil
}

// Write writes config to path (mode 0600) atomically, creating the directory
// (mode 0700) when missing. When path is a symbolic link, its target is
// replaced, not the link. As kubectl does, file references of entries read
// from path itself are written relative to its directory when they lie below
// it, so that loading a file and writing it back keeps it as it was.
func Write(config *api.Config, path string) error {
	data, err := Marshal(relativize(config, path))
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	return writeFileAtomic(path, data, 0o600)
}

// relativize returns config with the file references of the entries loaded
// from path made relative to path's directory, where that needs no "..".
func relativize(config *api.Config, path string) *api.Config {
	abs, err := filepath.Abs(path)
	if err != nil {
		return config
	}
	fromHere := func(origin string) bool {
		o, err := filepath.Abs(origin)
		return origin != "" && err == nil && o == abs
	}
	dir := filepath.Dir(abs)
	rel := func(p string) string {
		if !filepath.IsAbs(p) {
			return p
		}
		r, err := filepath.Rel(dir, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return p
		}
		return r
	}
	out := config.DeepCopy()
	for _, c := range out.Clusters {
		if fromHere(c.LocationOfOrigin) {
			c.CertificateAuthority = rel(c.CertificateAuthority)
		}
	}
	for _, a := range out.AuthInfos {
		if fromHere(a.LocationOfOrigin) {
			a.ClientCertificate, a.ClientKey, a.TokenFile = rel(a.ClientCertificate), rel(a.ClientKey), rel(a.TokenFile)
		}
	}
	return out
}

func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fileError(path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fileError(path, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	for _, step := range []func() error{
		func() error { return f.Chmod(perm) },
		func() error { _, err := f.Write(data); return err },
		f.Sync,
		f.Close,
		func() error { return os.Rename(tmp, path) },
	} {
		if err := step(); err != nil {
			return fileError(path, err)
		}
	}
	done = true
	// Make the rename durable.
	d, err := os.Open(dir)
	if err != nil {
		return fileError(path, err)
	}
	defer func() { _ = d.Close() }()
	if err := d.Sync(); err != nil {
		return fileError(path, err)
	}
	return nil
}

func encodeData(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

func encodeExtensions(in map[string]json.RawMessage) []fileNamedExtension {
	var out []fileNamedExtension
	for _, name := range sortedKeys(in) {
		ext := nonNull(in[name])
		if ext == nil {
			ext = json.RawMessage("null")
		}
		out = append(out, fileNamedExtension{Name: name, Extension: ext})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
