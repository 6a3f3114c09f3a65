package describe

import (
	"bytes"
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 59 * time.Second: "59s", 119 * time.Second: "119s", 5*time.Minute + 2*time.Second: "5m2s",
		5 * time.Minute: "5m", 90 * time.Minute: "90m", 4*time.Hour + 30*time.Minute: "4h30m",
		30 * time.Hour: "30h", 50 * time.Hour: "2d2h", 30 * 24 * time.Hour: "30d",
		3 * 365 * 24 * time.Hour: "3y", 10 * 365 * 24 * time.Hour: "10y", -time.Second: "0s",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestLabelsAndAnnotations(t *testing.T) {
	var buf bytes.Buffer
	w := newPrefixWriter(&buf)
	w.write(level0, "Name:\t%s\n", "x")
	w.writeLabels(level0, "Labels", map[string]string{"b": "2", "a": "1"})
	w.writeAnnotations(level0, "Annotations", map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": "{}", "note": "hi", "multi": "one\ntwo",
	})
	w.writeLabels(level0, "Node-Selectors", nil)
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	want := "Name:            x\n" +
		"Labels:          a=1\n" +
		"                 b=2\n" +
		"Annotations:     multi:\n" +
		"                   one\n" +
		"                   two\n" +
		"                 note: hi\n" +
		"Node-Selectors:  <none>\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
