// Package clientcmd loads kubeconfig files the way kubectl does (--kubeconfig,
// KUBECONFIG merging, ~/.kube/config, flag overrides) and builds rest.Configs.
package clientcmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kubecore.io/client/tools/clientcmd/api"
)

const (
	// RecommendedConfigPathEnvVar lists kubeconfig files to merge, separated
	// like PATH.
	RecommendedConfigPathEnvVar = "KUBECONFIG"
	// RecommendedHomeDir and RecommendedFileName make ~/.kube/config.
	RecommendedHomeDir  = ".kube"
	RecommendedFileName = "config"
)

// RecommendedHomeFile returns ~/.kube/config, or "" when there is no home
// directory.
func RecommendedHomeFile() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, RecommendedHomeDir, RecommendedFileName)
}

// LoadingRules say which kubeconfig files to read, as kubectl does: the
// --kubeconfig file alone when given (it must exist), else the merge of the
// Precedence files (those missing are skipped).
type LoadingRules struct {
	// ExplicitPath is the --kubeconfig flag.
	ExplicitPath string
	// Precedence lists the files to merge: for each cluster, user and context
	// name, and for current-context, the first file that sets it wins.
	Precedence []string
}

// NewDefaultLoadingRules returns rules reading $KUBECONFIG when set, else
// ~/.kube/config. Set ExplicitPath on the result for a --kubeconfig flag.
func NewDefaultLoadingRules() *LoadingRules {
	if env := os.Getenv(RecommendedConfigPathEnvVar); env != "" {
		return &LoadingRules{Precedence: splitPathList(env)}
	}
	if home := RecommendedHomeFile(); home != "" {
		return &LoadingRules{Precedence: []string{home}}
	}
	return &LoadingRules{}
}

// splitPathList splits a KUBECONFIG value, dropping empty and repeated entries.
func splitPathList(list string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range filepath.SplitList(list) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Files returns the files the rules consider, in order.
func (r *LoadingRules) Files() []string {
	if r.ExplicitPath != "" {
		return []string{r.ExplicitPath}
	}
	return r.Precedence
}

// DefaultFilename returns the file a tool should write a changed kubeconfig
// to: the explicit file, else the first existing one, else the first listed.
func (r *LoadingRules) DefaultFilename() string {
	files := r.Files()
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	if len(files) > 0 {
		return files[0]
	}
	return ""
}

// Load reads and merges the files of the rules. No file at all is an empty
// Config, not an error; an unreadable or invalid file is an error naming it.
func (r *LoadingRules) Load() (*api.Config, error) {
	l, err := r.load()
	if err != nil {
		return nil, err
	}
	return l.config, nil
}

// loaded is a merged kubeconfig with where its parts came from, for messages.
type loaded struct {
	config *api.Config
	// files are the files read, in order.
	files []string
	// candidates are the files looked for.
	candidates []string
	// currentContextFrom is the file whose current-context won.
	currentContextFrom string
}

// where names the kubeconfig for an error message.
func (l *loaded) where() string {
	switch {
	case len(l.files) > 0:
		return "kubeconfig " + strings.Join(l.files, string(filepath.ListSeparator))
	case len(l.candidates) > 0:
		return "kubeconfig (no file at " + strings.Join(l.candidates, string(filepath.ListSeparator)) + ")"
	default:
		return "kubeconfig"
	}
}

func (r *LoadingRules) load() (*loaded, error) {
	l := &loaded{config: api.NewConfig(), candidates: r.Files()}
	if r.ExplicitPath != "" {
		cfg, err := LoadFromFile(r.ExplicitPath)
		if err != nil {
			return nil, err
		}
		l.files = []string{r.ExplicitPath}
		l.merge(cfg, r.ExplicitPath)
		return l, nil
	}
	for _, path := range r.Precedence {
		cfg, err := LoadFromFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		l.files = append(l.files, path)
		l.merge(cfg, path)
	}
	return l, nil
}

// merge adds what src sets and l.config does not yet.
func (l *loaded) merge(src *api.Config, path string) {
	dst := l.config
	if dst.CurrentContext == "" && src.CurrentContext != "" {
		dst.CurrentContext, l.currentContextFrom = src.CurrentContext, path
	}
	if !dst.Preferences.Colors {
		dst.Preferences.Colors = src.Preferences.Colors
	}
	mergeMissing(&dst.Preferences.Extensions, src.Preferences.Extensions)
	mergeMissing(&dst.Clusters, src.Clusters)
	mergeMissing(&dst.AuthInfos, src.AuthInfos)
	mergeMissing(&dst.Contexts, src.Contexts)
	mergeMissing(&dst.Extensions, src.Extensions)
}

// mergeMissing copies the entries of src whose keys *dst lacks.
func mergeMissing[V any](dst *map[string]V, src map[string]V) {
	for k, v := range src {
		if _, ok := (*dst)[k]; ok {
			continue
		}
		if *dst == nil {
			*dst = map[string]V{}
		}
		(*dst)[k] = v
	}
}
