package podsecurity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Level is a Pod Security Standards profile.
type Level string

// The profiles, from the most permissive to the most restrictive.
const (
	LevelPrivileged Level = "privileged"
	LevelBaseline   Level = "baseline"
	LevelRestricted Level = "restricted"
)

// rank orders the levels; an unknown level ranks as restricted.
func (l Level) rank() int {
	switch l {
	case LevelPrivileged:
		return 0
	case LevelBaseline:
		return 1
	default:
		return 2
	}
}

// ParseLevel reads the value of a mode label.
func ParseLevel(s string) (Level, error) {
	switch l := Level(s); l {
	case LevelPrivileged, LevelBaseline, LevelRestricted:
		return l, nil
	}
	return "", fmt.Errorf("must be one of %s, %s, %s", LevelPrivileged, LevelBaseline, LevelRestricted)
}

// Version is the Kubernetes minor version whose checks a policy applies;
// Latest is newer than every minor.
type Version int

// Latest is the version "latest": the checks of the newest release.
const Latest Version = math.MaxInt32

// String is "latest" or "v1.<minor>".
func (v Version) String() string {
	if v == Latest {
		return "latest"
	}
	return "v1." + strconv.Itoa(int(v))
}

// atLeast reports whether v is minor 1.minor or newer.
func (v Version) atLeast(minor int) bool { return int(v) >= minor }

// ParseVersion reads the value of a version label: "latest" or "v1.<minor>".
func ParseVersion(s string) (Version, error) {
	if s == "latest" {
		return Latest, nil
	}
	minor, ok := strings.CutPrefix(s, "v1.")
	n, err := strconv.Atoi(minor)
	if !ok || err != nil || n < 0 || n >= int(Latest) || strconv.Itoa(n) != minor {
		return 0, fmt.Errorf(`must be "latest" or "v1.x"`)
	}
	return Version(n), nil
}

// LevelVersion is a level at a version, "restricted:latest" in messages.
type LevelVersion struct {
	Level   Level
	Version Version
}

func (lv LevelVersion) String() string { return string(lv.Level) + ":" + lv.Version.String() }

// Mode is how a namespace applies a policy.
type Mode string

// The modes, each a label pod-security.kubernetes.io/<mode> (and
// <mode>-version).
const (
	ModeEnforce Mode = "enforce"
	ModeAudit   Mode = "audit"
	ModeWarn    Mode = "warn"
)

// LabelPrefix prefixes the namespace labels and the audit annotations.
const LabelPrefix = "pod-security.kubernetes.io/"

// Policy is what a namespace's labels ask of its pods.
type Policy struct {
	Enforce, Audit, Warn LevelVersion
}

// PolicyOf reads the policy of a namespace from its labels. A mode without
// a label is privileged, a version without one latest. A label with a bad
// value answers a field error and, fail-closed as Kubernetes does, counts
// as restricted (a bad level) or latest (a bad version).
func PolicyOf(labels map[string]string) (Policy, field.ErrorList) {
	var errs field.ErrorList
	path := field.NewPath("metadata", "labels")
	read := func(m Mode) LevelVersion {
		lv := LevelVersion{Level: LevelPrivileged, Version: Latest}
		if s, ok := labels[LabelPrefix+string(m)]; ok {
			l, err := ParseLevel(s)
			if err != nil {
				errs = append(errs, field.Invalid(path.Key(LabelPrefix+string(m)), s, err.Error()))
				l = LevelRestricted
			}
			lv.Level = l
		}
		if s, ok := labels[LabelPrefix+string(m)+"-version"]; ok {
			v, err := ParseVersion(s)
			if err != nil {
				errs = append(errs, field.Invalid(path.Key(LabelPrefix+string(m)+"-version"), s, err.Error()))
				v = Latest
			}
			lv.Version = v
		}
		return lv
	}
	p := Policy{Enforce: read(ModeEnforce), Audit: read(ModeAudit), Warn: read(ModeWarn)}
	return p, errs
}
