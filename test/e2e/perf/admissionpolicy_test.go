package perf

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/figure"
)

// benchPolicy is a ValidatingAdmissionPolicy on pod creates with a
// variable and two validations, the second refusing pods named refuse-*
// (the canary that tells the policy is in force).
const benchPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"bench"},
"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["pods"]}]},
"variables":[{"name":"containers","expression":"object.spec.containers"}],
"validations":[{"expression":"variables.containers.all(c, c.image != '' && !c.image.endsWith(':latest'))","message":"pin the images"},
{"expression":"!object.metadata.name.startsWith('refuse-')","message":"canary"}]}}`

const benchBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"bench"},
"spec":{"policyName":"bench","validationActions":["Deny"]}}`

// BenchmarkValidatingAdmissionPolicy measures the create latency a
// ValidatingAdmissionPolicy adds: pod creates with 16 clients on one
// server, in alternating rounds without a policy binding and with one
// policy bound to every pod create (the same run, so the machine's load
// weighs on both alike, and each mode goes first in half the rounds).
func BenchmarkValidatingAdmissionPolicy(b *testing.B) {
	ctx := context.Background()
	s := startBenchServer(b)
	hc, err := s.HTTPClient(true)
	if err != nil {
		b.Fatal(err)
	}
	send := func(method, path, body string) (int, string) {
		req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	const admission = "/apis/admissionregistration.k8s.io/v1/"
	if code, body := send(http.MethodPost, admission+"validatingadmissionpolicies", benchPolicy); code != http.StatusCreated {
		b.Fatalf("create policy: %d %s", code, body)
	}
	canary := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"refuse-1"},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}`
	// waitCanary waits until a dry-run create of the canary answers code.
	waitCanary := func(code int) {
		deadline := time.Now().Add(time.Minute)
		for {
			got, body := send(http.MethodPost, "/api/v1/namespaces/bench/pods?dryRun=All", canary)
			if got == code {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("canary answered %d, want %d: %s", got, code, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	const rounds, perRound, clients = 4, 1000, 16
	var lat [2][]time.Duration
	for r := range rounds {
		// Each round swaps which mode goes first: later creates meet a
		// fuller store.
		for i := range 2 {
			mode := (i + r) % 2
			if mode == 1 {
				if code, body := send(http.MethodPost, admission+"validatingadmissionpolicybindings", benchBinding); code != http.StatusCreated {
					b.Fatalf("create binding: %d %s", code, body)
				}
				waitCanary(http.StatusForbidden)
			}
			l, _ := createPods(ctx, b, clientset(b, s), "bench", fmt.Sprintf("r%d-m%d", r, mode), perRound, clients)
			lat[mode] = append(lat[mode], l...)
			if mode == 1 {
				if code, body := send(http.MethodDelete, admission+"validatingadmissionpolicybindings/bench", ""); code != http.StatusOK {
					b.Fatalf("delete binding: %d %s", code, body)
				}
				waitCanary(http.StatusCreated)
			}
		}
	}
	p50n, p99n := percentiles(lat[0])
	p50p, p99p := percentiles(lat[1])
	figure.Print("pod create p50/p99 with 16 clients, no policy (same run)", fmt.Sprintf("%s/%s", p50n, p99n), "", "the reference", true)
	figure.Print("pod create p50/p99 with 16 clients, one VAP bound", fmt.Sprintf("%s/%s", p50p, p99p), "", "p99 <= 1.25x none", p99p <= p99n*5/4)
}
