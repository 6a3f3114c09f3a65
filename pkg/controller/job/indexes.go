package job

import (
	"slices"
	"strconv"
	"strings"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
)

// indexSet is a set of completion indexes.
type indexSet map[int]struct{}

// parseIndexes reads status.completedIndexes ("1,3-5,7"); parts that do
// not parse, or lie outside [0, completions), are dropped.
func parseIndexes(s string, completions int) indexSet {
	set := indexSet{}
	if s == "" {
		return set
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := max(first, 0); i <= last && i < completions; i++ {
			set[i] = struct{}{}
		}
	}
	return set
}

// String renders the set as completedIndexes does: increasing,
// consecutive runs of three or more as ranges, "1,3-5,7".
func (s indexSet) String() string {
	ix := make([]int, 0, len(s))
	for i := range s {
		ix = append(ix, i)
	}
	slices.Sort(ix)
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ix[i]))
		switch {
		case j == i+1:
			b.WriteString("," + strconv.Itoa(ix[j]))
		case j > i+1:
			b.WriteString("-" + strconv.Itoa(ix[j]))
		}
		i = j + 1
	}
	return b.String()
}

// podIndex is the completion index of a pod of an Indexed Job, -1 when it
// has none or an invalid one.
func podIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// pendingIndexes returns, lowest first and at most n, the indexes in
// [0, completions) neither completed nor held by an active pod.
func pendingIndexes(completions int, completed, active indexSet, n int) []int {
	var out []int
	for i := 0; i < completions && len(out) < n; i++ {
		_, done := completed[i]
		_, running := active[i]
		if !done && !running {
			out = append(out, i)
		}
	}
	return out
}
