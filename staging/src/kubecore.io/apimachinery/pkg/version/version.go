// Package version reports the build's version, as /version and
// `kubecore version` print it. The Makefile sets the variables with -ldflags.
package version

import (
	"fmt"
	"runtime"
)

// Set at build time with -ldflags "-X kubecore.io/apimachinery/pkg/version.gitVersion=...".
var (
	gitMajor     = "1"
	gitMinor     = "32"
	gitVersion   = "v1.32.0-kubecore-dev"
	gitCommit    = ""
	gitTreeState = ""
	buildDate    = "1970-01-01T00:00:00Z"
)

// Info is the JSON document served at /version.
type Info struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// String returns the git version.
func (i Info) String() string { return i.GitVersion }

// Get returns the version of this build.
func Get() Info {
	return Info{
		Major:        gitMajor,
		Minor:        gitMinor,
		GitVersion:   gitVersion,
		GitCommit:    gitCommit,
		GitTreeState: gitTreeState,
		BuildDate:    buildDate,
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
