package main

import (
	"fmt"
	"math"
	"time"
)

var inf = math.Inf(1)

// slack is growth over a judged window that is not a leak: a fraction of
// the window's mean.
const slack = 0.25

// judgeGrowth decides whether the database size, RSS and goroutines grow
// without bound, printing each verdict.
//
// The database outlives restarts: its window is the last half of the run.
// RSS and goroutines belong to one process. Without restarts their window
// is the last half of the run, but not before the event TTL (and a
// minute) has passed: until then the events the cluster records pile up
// in etcd and in the watch cache by design, and only after it do they
// expire as fast as they come. With restarts each process starts afresh
// (with the events of the TTL relisted), so what must not grow is the
// peak of each full life from one life to the next.
func judgeGrowth(samples []sample, eventTTL, chaos time.Duration) []error {
	if len(samples) == 0 {
		return []error{fmt.Errorf("no samples")}
	}
	var errs []error
	verdict := func(name string, slope, growth, mean float64, window string) {
		v := "flat"
		if growth > slack*mean {
			v = "GROWING"
			errs = append(errs, fmt.Errorf("%s grows without bound: %+.0f over %s (mean %.0f)", name, growth, window, mean))
		}
		fmt.Printf("%-12s %s: slope %+.3g/s, %+.0f (%+.1f%% of the mean %.0f): %s\n", name, window, slope, growth, 100*growth/mean, mean, v)
	}
	end := samples[len(samples)-1].at
	half := end / 2
	slope, growth, mean := fit(window(samples, half, end), func(s sample) float64 { return s.dbSize })
	verdict("etcd DB size", slope, growth, mean, fmt.Sprintf("the last half (%s-%s)", half.Round(time.Second), end.Round(time.Second)))

	perProcess := []struct {
		name string
		get  func(sample) float64
	}{
		{"RSS", func(s sample) float64 { return s.rss }},
		{"goroutines", func(s sample) float64 { return s.goroutines }},
	}
	if samples[len(samples)-1].life == samples[0].life {
		from := max(half, eventTTL+time.Minute)
		if end-from < 5*time.Minute {
			return append(errs, fmt.Errorf("RSS and goroutines not judged: the run (%s) ends less than 5m after the event TTL (%s) plus a minute; run longer or with a shorter --event-ttl", end.Round(time.Second), eventTTL))
		}
		for _, m := range perProcess {
			slope, growth, mean := fit(window(samples, from, end), m.get)
			verdict(m.name, slope, growth, mean, fmt.Sprintf("%s-%s", from.Round(time.Second), end.Round(time.Second)))
		}
		return errs
	}
	lives := fullLives(samples, chaos)
	if len(lives) < 3 {
		return append(errs, fmt.Errorf("RSS and goroutines not judged: %d full lives between restarts, 3 needed; run longer", len(lives)))
	}
	for _, m := range perProcess {
		peaks := make([]sample, len(lives))
		for i, life := range lives {
			peak := life[0]
			for _, s := range life {
				if m.get(s) > m.get(peak) {
					peak = s
				}
			}
			peaks[i] = peak
		}
		slope, growth, mean := fit(peaks, m.get)
		verdict(m.name, slope, growth, mean, fmt.Sprintf("the peaks of %d full lives", len(lives)))
	}
	return errs
}

// window are the samples taken from from to to.
func window(samples []sample, from, to time.Duration) []sample {
	var out []sample
	for _, s := range samples {
		if s.at >= from && s.at <= to {
			out = append(out, s)
		}
	}
	return out
}

// fullLives splits the samples by process, keeping the lives sampled for
// at least most of the chaos interval (not the last, cut short by the end
// of the run, nor the first: its events have not reached their TTL).
func fullLives(samples []sample, chaos time.Duration) [][]sample {
	var lives [][]sample
	for i := 0; i < len(samples); {
		j := i
		for j < len(samples) && samples[j].life == samples[i].life {
			j++
		}
		if life := samples[i:j]; samples[i].life > 1 && life[len(life)-1].at-life[0].at >= chaos*3/4 {
			lives = append(lives, life)
		}
		i = j
	}
	return lives
}

// fit is a least-squares line through the samples: its slope per second,
// the growth it means from the first sample to the last, and the mean.
func fit(samples []sample, get func(sample) float64) (slope, growth, mean float64) {
	if len(samples) < 2 {
		return 0, 0, 0
	}
	var sx, sy, sxx, sxy float64
	for _, s := range samples {
		x, y := s.at.Seconds(), get(s)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(samples))
	mean = sy / n
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, 0, mean
	}
	slope = (n*sxy - sx*sy) / den
	return slope, slope * (samples[len(samples)-1].at - samples[0].at).Seconds(), mean
}

func printTable(samples []sample) {
	fmt.Printf("%8s %4s %7s %7s %7s %6s %4s %7s %6s %5s %6s %8s %8s %8s\n",
		"t", "life", "db MiB", "inuse", "rss MiB", "gorout", "fds", "cacheOb", "ring", "5xx", "compct", "mut p99", "writes", "watchEv")
	for _, s := range samples {
		fmt.Printf("%8s %4d %7.1f %7.1f %7.1f %6.0f %4.0f %7.0f %6.0f %5.0f %6.0f %7.3fs %8d %8d\n",
			s.at.Round(time.Second), s.life, s.dbSize/(1<<20), s.dbInUse/(1<<20), s.rss/(1<<20), s.goroutines, s.fds,
			s.cacheObjects, s.cacheEvents, s.errors5xx, s.compactions, s.mutatingP99, s.writes, s.watchEvents)
	}
}
