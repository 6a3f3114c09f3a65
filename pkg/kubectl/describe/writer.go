// Package describe prints `kubectl describe` pages: a describer per kind
// (pods, deployments, replica sets, nodes, namespaces, services, config
// maps, secrets) and a generic one for the rest, each followed by the
// object's Events.
package describe

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"kubecore.io/kubecore/pkg/kubectl/apply"
)

// Indentation levels of a describe page, two spaces each.
const (
	level0 = iota
	level1
	level2
	level3
)

// prefixWriter writes indented lines through a tabwriter that aligns the
// runs of consecutive lines holding tabs, as kubectl's pages do.
type prefixWriter struct {
	out   io.Writer
	flush func() error
}

func newPrefixWriter(out io.Writer) *prefixWriter {
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	return &prefixWriter{out: tw, flush: tw.Flush}
}

// newRawPrefixWriter returns a prefixWriter that leaves the tabs as they
// are, as kubectl prints some sections outside a page.
func newRawPrefixWriter(out io.Writer) *prefixWriter {
	return &prefixWriter{out: out, flush: func() error { return nil }}
}

// write prints format at the level's indentation.
func (w *prefixWriter) write(level int, format string, args ...any) {
	fmt.Fprintf(w.out, strings.Repeat("  ", level)+format, args...)
}

// writeMapMultiline prints "Title:\tk=v" then "\tk=v" for each further key,
// sorted, or "<none>".
func (w *prefixWriter) writeLabels(level int, title string, m map[string]string) {
	w.write(level, "%s:\t", title)
	if len(m) == 0 {
		w.write(level0, "<none>\n")
		return
	}
	for i, k := range slices.Sorted(mapKeys(m)) {
		if i > 0 {
			w.write(level, "\t")
		}
		w.write(level0, "%s=%s\n", k, m[k])
	}
}

// maxAnnotationLen is where long annotation values are cut.
const maxAnnotationLen = 140

// writeAnnotations prints annotations as "key: value", hiding the one
// kubectl apply keeps.
func (w *prefixWriter) writeAnnotations(level int, title string, m map[string]string) {
	w.write(level, "%s:\t", title)
	var keys []string
	for k := range m {
		if k != apply.LastAppliedAnnotation {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		w.write(level0, "<none>\n")
		return
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			w.write(level, "\t")
		}
		v := strings.TrimSuffix(m[k], "\n")
		switch {
		case strings.Contains(v, "\n"):
			w.write(level0, "%s:\n", k)
			for _, l := range strings.Split(v, "\n") {
				if len(l) > maxAnnotationLen {
					l = l[:maxAnnotationLen] + "..."
				}
				w.write(level, "\t  %s\n", l)
			}
		case len(v) > maxAnnotationLen:
			w.write(level0, "%s: %s...\n", k, v[:maxAnnotationLen])
		default:
			w.write(level0, "%s: %s\n", k, v)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// timestamp prints a time as describe pages do.
func timestamp(t time.Time) string { return t.Format(time.RFC1123Z) }

// humanDuration prints an age the way kubectl's columns do: two units at
// most, the finer one dropped as the age grows.
func humanDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 120:
		return fmt.Sprintf("%ds", s)
	case s < 600:
		return pair(s/60, "m", s%60, "s")
	case s < 3*3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 8*3600:
		return pair(s/3600, "h", (s%3600)/60, "m")
	case s < 48*3600:
		return fmt.Sprintf("%dh", s/3600)
	case s < 8*86400:
		return pair(s/86400, "d", (s%86400)/3600, "h")
	case s < 2*365*86400:
		return fmt.Sprintf("%dd", s/86400)
	case s < 8*365*86400:
		return pair(s/(365*86400), "y", (s%(365*86400))/86400, "d")
	}
	return fmt.Sprintf("%dy", s/(365*86400))
}

func pair(major int64, mu string, minor int64, nu string) string {
	if minor == 0 {
		return fmt.Sprintf("%d%s", major, mu)
	}
	return fmt.Sprintf("%d%s%d%s", major, mu, minor, nu)
}
