package etcd3

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/storage"
)

func names(l *storage.List) []string {
	out := make([]string, 0, len(l.Items))
	for _, o := range l.Items {
		out = append(out, o.(*widget).Name)
	}
	return out
}

// seed creates w00..w(n-1) in namespace default; the even ones have
// parity=even.
func seed(t *testing.T, s storage.Interface, n int) []*widget {
	t.Helper()
	out := make([]*widget, 0, n)
	for i := range n {
		name := fmt.Sprintf("w%02d", i)
		parity := "odd"
		if i%2 == 0 {
			parity = "even"
		}
		out = append(out, mustCreate(t, s, "/widgets/default/"+name, newWidget(name, map[string]string{"parity": parity})))
	}
	return out
}

func TestContinueTokenRoundTrip(t *testing.T) {
	tok, err := encodeContinue("/registry/pods/default/b\x00", "/registry/pods/", 42)
	if err != nil {
		t.Fatal(err)
	}
	key, rv, err := decodeContinue(tok, "/registry/pods/")
	if err != nil || key != "/registry/pods/default/b\x00" || rv != 42 {
		t.Fatalf("decoded %q %d %v", key, rv, err)
	}
	bad := []string{
		"not base64!",
		b64(`{"v":"meta.k8s.io/v2","rv":1,"start":"a"}`),
		b64(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`),
		b64(`{"v":"meta.k8s.io/v1","rv":1,"start":""}`),
		b64(`{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"}`),
		b64(`not json`),
	}
	for _, b := range bad {
		if _, _, err := decodeContinue(b, "/registry/pods/"); err == nil {
			t.Errorf("decode %q: want an error", b)
		}
	}
	if _, err := encodeContinue("/other/x", "/registry/pods/", 1); err == nil {
		t.Error("encode of a key outside the prefix: want an error")
	}
}

func TestGetList(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	ws := seed(t, s, 10)
	mustCreate(t, s, "/widgetsother/default/x", newWidget("x", nil)) // a sibling prefix
	firstRV := ws[0].ResourceVersion
	// Change w00 after the fact, to read it at an older revision.
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/w00", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	even, err := labels.Parse("parity=even")
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"w00", "w01", "w02", "w03", "w04", "w05", "w06", "w07", "w08", "w09"}
	tests := []struct {
		name          string
		key           string
		opts          storage.ListOptions
		want          []string
		wantContinue  bool
		wantRemaining *int64
		wantCode      storage.ErrorCode
	}{
		{name: "all", key: "/widgets", opts: storage.ListOptions{Recursive: true}, want: all},
		{name: "namespace", key: "/widgets/default/", opts: storage.ListOptions{Recursive: true}, want: all},
		{name: "any version", key: "/widgets", opts: storage.ListOptions{Recursive: true, ResourceVersion: "0"}, want: all},
		{name: "single key", key: "/widgets/default/w03", opts: storage.ListOptions{}, want: []string{"w03"}},
		{name: "first page", key: "/widgets", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 3}},
			want: all[:3], wantContinue: true, wantRemaining: ptr(int64(7))},
		{name: "whole list in one page", key: "/widgets", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 10}},
			want: all},
		{name: "label selector fills the limit across pages", key: "/widgets", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{
			Label: even, GetAttrs: widgetAttrs, Limit: 4}}, want: []string{"w00", "w02", "w04", "w06"}, wantContinue: true},
		{name: "field selector", key: "/widgets", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{
			Field: fields.OneTermEqualSelector("metadata.name", "w07"), GetAttrs: widgetAttrs}}, want: []string{"w07"}},
		{name: "exact old revision", key: "/widgets", opts: storage.ListOptions{Recursive: true, ResourceVersion: firstRV,
			ResourceVersionMatch: metav1.ResourceVersionMatchExact}, want: []string{"w00"}},
		{name: "not older than", key: "/widgets", opts: storage.ListOptions{Recursive: true, ResourceVersion: firstRV,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, want: all},
		{name: "too large", key: "/widgets", opts: storage.ListOptions{Recursive: true, ResourceVersion: "999999999"},
			wantCode: storage.ErrCodeTooLargeResourceVersion},
		{name: "bad continue", key: "/widgets", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Continue: "xyz"}},
			wantCode: storage.ErrCodeInvalidContinue},
		{name: "empty", key: "/nothing", opts: storage.ListOptions{Recursive: true}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := s.GetList(ctx, tt.key, tt.opts)
			if tt.wantCode != 0 {
				if !hasCode(err, tt.wantCode) {
					t.Fatalf("err %v, want code %d", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(l); !slices.Equal(got, tt.want) {
				t.Errorf("items %v, want %v", got, tt.want)
			}
			if (l.Continue != "") != tt.wantContinue {
				t.Errorf("continue %q, want one: %v", l.Continue, tt.wantContinue)
			}
			if (l.RemainingItemCount == nil) != (tt.wantRemaining == nil) ||
				(l.RemainingItemCount != nil && *l.RemainingItemCount != *tt.wantRemaining) {
				t.Errorf("remaining %v, want %v", l.RemainingItemCount, tt.wantRemaining)
			}
			if l.ResourceVersion == 0 {
				t.Error("list without a resourceVersion")
			}
		})
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func ptr[T any](v T) *T { return &v }

// listAll pages through a list with limit, checking that every page has the
// first page's resourceVersion; between pages it calls between.
func listAll(t *testing.T, s storage.Interface, pred storage.SelectionPredicate, between func()) ([]string, uint64) {
	t.Helper()
	ctx := ctxT(t)
	var got []string
	var rv uint64
	for {
		l, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, Predicate: pred})
		if err != nil {
			t.Fatal(err)
		}
		if rv == 0 {
			rv = l.ResourceVersion
		} else if l.ResourceVersion != rv {
			t.Errorf("page at revision %d, first page at %d", l.ResourceVersion, rv)
		}
		got = append(got, names(l)...)
		if l.Continue == "" {
			return got, rv
		}
		pred.Continue = l.Continue
		if between != nil {
			between()
		}
	}
}

// TestContinueIsConsistent: pages after the first show the first page's
// snapshot while writes go on.
func TestContinueIsConsistent(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	seed(t, s, 10)
	n := 0
	got, _ := listAll(t, s, storage.SelectionPredicate{Limit: 3}, func() {
		n++
		if _, err := s.Create(ctx, fmt.Sprintf("/widgets/default/w%02d-new", 9-n), newWidget("new", nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Delete(ctx, fmt.Sprintf("/widgets/default/w%02d", 10-n), nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	want := []string{"w00", "w01", "w02", "w03", "w04", "w05", "w06", "w07", "w08", "w09"}
	if !slices.Equal(got, want) {
		t.Errorf("paged list %v, want the snapshot %v", got, want)
	}
	// With a selector, pages fill across etcd pages and stay consistent too.
	odd, _ := labels.Parse("parity=odd")
	got, _ = listAll(t, s, storage.SelectionPredicate{Limit: 2, Label: odd, GetAttrs: widgetAttrs}, nil)
	if want := []string{"w01", "w03", "w05"}; !slices.Equal(got, want) {
		t.Errorf("odd after deletes %v, want %v", got, want)
	}
}

// TestContinueCompacted: a continue token whose revision was compacted
// gives 410 Expired with a token that resumes at the latest revision.
func TestContinueCompacted(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	seed(t, s, 5)
	first, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 2}})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/widgets/default/w09", newWidget("w09", nil))
	cur, err := s.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testClient.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 2, Continue: first.Continue}})
	if !storage.IsExpired(err) {
		t.Fatalf("continue after compaction: %v, want Expired", err)
	}
	var statusErr *apierrors.StatusError
	if !errors.As(err, &statusErr) {
		t.Fatalf("%v carries no Status", err)
	}
	st := statusErr.Status()
	if st.Code != 410 || st.Reason != metav1.StatusReasonExpired || st.Message != InconsistentContinueMessage || st.Continue == "" {
		t.Fatalf("status %+v", st)
	}
	// The inconsistent token resumes at the latest revision.
	rest, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Continue: st.Continue}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(rest), []string{"w02", "w03", "w04", "w09"}; !slices.Equal(got, want) {
		t.Errorf("rest %v, want %v", got, want)
	}
	if strconv.FormatUint(rest.ResourceVersion, 10) == "" || rest.ResourceVersion < cur {
		t.Errorf("rest at %d, want ≥ %d", rest.ResourceVersion, cur)
	}
	// A list at an exact compacted revision is Expired as well.
	_, err = s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !storage.IsExpired(err) {
		t.Errorf("exact compacted list: %v, want Expired", err)
	}
}
